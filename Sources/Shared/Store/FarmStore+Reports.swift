import FarmCore
import FarmPostgres

/// What workers report between verdicts (heartbeats, progress), recorded in batches: the
/// coordinator gathers a tick's reports and writes them in one statement each, committed
/// without waiting for the disk, so a farm of a thousand workers costs a few statements a tick,
/// not two per heartbeat.
extension FarmStore {
    /// One worker's latest heartbeat.
    public struct HeartbeatReport: Sendable {
        public var worker: WorkerInfo
        public var holding: [AttemptKey]

        public init(worker: WorkerInfo, holding: [AttemptKey]) {
            self.worker = worker
            self.holding = holding
        }
    }

    public struct HeartbeatOutcome: Sendable {
        /// Workers an operator is draining.
        public var draining: Set<String> = []
        /// By worker: attempts it reported that are not its live ones (re-leased, finished,
        /// cancelled, or never its own), which it should drop.
        public var stale: [String: [AttemptKey]] = [:]

        public init() {}
    }

    /// Marks the workers seen (rendering when they hold anything) and extends the leases they
    /// hold.
    public func recordHeartbeats(_ reports: [HeartbeatReport], leaseSeconds: Double) throws -> HeartbeatOutcome {
        guard !reports.isEmpty else { return HeartbeatOutcome() }
        let held = reports.flatMap { report in report.holding.map { (report.worker.id, $0) } }
        let rows = try connection.transaction(durable: false) {
            try connection.query(
                """
                WITH seen AS (
                    INSERT INTO workers (id, host, cores, slots, version, state, tags, node_kind, node_summary)
                    SELECT w.id, w.host, w.cores, w.slots, w.version, w.state, string_to_array(w.tags, ','), w.kind,
                           w.summary
                    FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::text[], $6::text[],
                                $11::text[], $12::text[], $13::text[])
                         AS w(id, host, cores, slots, version, state, tags, kind, summary)
                    ON CONFLICT (id) DO UPDATE SET host = excluded.host, cores = excluded.cores,
                        slots = excluded.slots, version = excluded.version, state = excluded.state,
                        tags = excluded.tags, node_kind = excluded.node_kind, node_summary = excluded.node_summary,
                        last_seen = now()
                    RETURNING id, draining),
                renewed AS (
                    UPDATE chunks c SET lease_expires = now() + make_interval(secs => $10::double precision)
                    FROM unnest($7::text[], $8::bigint[], $9::integer[]) AS k(worker, id, attempt)
                    WHERE c.id = k.id AND c.attempt = k.attempt AND c.worker_id = k.worker AND c.state = 'running'
                    RETURNING c.worker_id, c.id, c.attempt)
                SELECT id AS draining, NULL AS worker, NULL::bigint AS chunk, NULL::integer AS attempt
                FROM seen WHERE draining
                UNION ALL SELECT NULL, worker_id, id, attempt FROM renewed
                """,
                [
                    PostgresArray.text(reports.map(\.worker.id)), PostgresArray.text(reports.map(\.worker.host)),
                    PostgresArray.integers(reports.map(\.worker.cores)),
                    PostgresArray.integers(reports.map(\.worker.slots)),
                    PostgresArray.text(reports.map(\.worker.version)),
                    PostgresArray.text(
                        reports.map { ($0.holding.isEmpty ? WorkerState.idle : .rendering).rawValue }),
                    PostgresArray.text(held.map(\.0)), PostgresArray.integers(held.map(\.1.chunk)),
                    PostgresArray.integers(held.map(\.1.attempt)), String(leaseSeconds),
                    // Tags are checked names without commas (`PoolTags`), so a list is one text.
                    PostgresArray.text(reports.map { ($0.worker.tags ?? []).joined(separator: ",") }),
                    PostgresArray.text(reports.map(\.worker.kindSignature.signature)),
                    PostgresArray.text(reports.map(\.worker.kindSignature.summary)),
                ])
        }
        var outcome = HeartbeatOutcome()
        var live: [String: Set<AttemptKey>] = [:]
        for row in rows {
            if let worker = try row.decode("draining", as: String?.self) {
                outcome.draining.insert(worker)
            } else {
                let key = AttemptKey(chunk: try row.decode("chunk"), attempt: try row.decode("attempt"))
                live[try row.decode("worker"), default: []].insert(key)
            }
        }
        for (worker, key) in held where live[worker]?.contains(key) != true {
            outcome.stale[worker, default: []].append(key)
        }
        return outcome
    }

    /// One progress report of a running attempt.
    public struct ProgressRecord: Sendable {
        public var key: AttemptKey
        public var worker: String
        public var frames: Int64
        public var fps: Double

        public init(key: AttemptKey, worker: String, frames: Int64, fps: Double) {
            self.key = key
            self.worker = worker
            self.frames = frames
            self.fps = fps
        }
    }

    /// Records progress of attempts still running on the worker that reports it, and wakes the
    /// watchers of each job it touched.
    public func recordProgress(_ records: [ProgressRecord]) throws {
        guard !records.isEmpty else { return }
        try connection.transaction(durable: false) {
            try connection.query(
                """
                WITH p AS (
                    SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::bigint[], $5::double precision[])
                        AS p(chunk, attempt, worker, frames, fps)),
                updated AS (
                    UPDATE attempts a SET frames_done = greatest(a.frames_done, p.frames), fps = p.fps
                    FROM p JOIN chunks c ON c.id = p.chunk
                    WHERE a.chunk_id = p.chunk AND a.attempt = p.attempt AND a.outcome = 'running'
                      AND a.worker_id = p.worker
                      -- Progress counts frames: an audio block has none to report.
                      AND c.kind = 'video'
                    RETURNING a.chunk_id)
                SELECT pg_notify('farm', x.job_id::text)
                FROM (SELECT DISTINCT c.job_id FROM updated u JOIN chunks c ON c.id = u.chunk_id) x
                """,
                [
                    PostgresArray.integers(records.map(\.key.chunk)),
                    PostgresArray.integers(records.map(\.key.attempt)),
                    PostgresArray.text(records.map(\.worker)), PostgresArray.integers(records.map(\.frames)),
                    "{" + records.map { String($0.fps) }.joined(separator: ",") + "}",
                ])
        }
    }
}
