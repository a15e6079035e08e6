import FarmCore
import FarmPostgres
import Foundation

/// Handing chunks out: claims under a lease, expiry, and stopping finished jobs' work. (Lease
/// renewals come with heartbeats: FarmStore+Reports.)
extension FarmStore {
    /// Leases up to `count` chunks to each worker of `requests`, in that order, in one round
    /// trip (`farm_claim`, `StoreFunction.claim`, whose comment gives every rule): highest
    /// priority job first, then oldest, audio blocks before video, video in frame order; paused
    /// jobs wait, draining workers get nothing, a job goes only to workers of its pool and kind,
    /// held audio waits for its loudness. Skips chunks a worker already failed or lost while
    /// another live worker has not, and jobs on which it failed `failuresPerWorker` chunks.
    public func claim(_ requests: [ClaimRequest], leaseSeconds: Double) throws -> [ClaimedChunk] {
        let wanted = requests.filter { $0.count > 0 }
        guard !wanted.isEmpty else { return [] }
        // One statement, so one transaction: if the connection drops before its answer comes
        // back, the claims may stand unsent, and `leased(to:)` finds them once it is back.
        let rows = try connection.query(
            "SELECT * FROM farm_claim($1::text[], $2::integer[], $3, $4::double precision)",
            [
                PostgresArray.text(wanted.map(\.worker)), PostgresArray.integers(wanted.map(\.count)),
                String(Self.failuresPerWorker), String(leaseSeconds),
            ])
        return try claimed(rows)
    }

    /// The running attempts leased to `workers`: after the database went away mid-claim, the
    /// claims it committed whose answer never came back, to be sent now.
    public func leased(to workers: [String]) throws -> [ClaimedChunk] {
        guard !workers.isEmpty else { return [] }
        return try claimed(
            connection.query(
                """
                SELECT worker_id AS claimed_worker, id AS claimed_chunk, job_id AS claimed_job, kind AS claimed_kind,
                       idx AS claimed_index, coalesce(start_frame, start_sample) AS claimed_start,
                       coalesce(end_frame, end_sample) AS claimed_end,
                       attempt AS claimed_attempt
                FROM chunks
                WHERE state = 'running' AND worker_id = ANY($1::text[])
                ORDER BY id
                """, [PostgresArray.text(workers)]))
    }

    /// Rows named as `farm_claim` returns them (`claimed_worker`, `claimed_chunk`, …) with their
    /// jobs' documents, each job's read once however many of its chunks went out.
    private func claimed(_ rows: [PostgresRow]) throws -> [ClaimedChunk] {
        guard !rows.isEmpty else { return [] }
        let jobIDs = Set(try rows.map { try $0.decode("claimed_job", as: Int64.self) })
        var jobs: [Int64: (text: String, file: String, root: String, pins: [String: MediaPin], gain: ProgrammeGain?)] =
            [:]
        for row in try connection.query(
            """
            SELECT id, project_text, project_file, media_root, media_pins, audio_gain FROM jobs
            WHERE id = ANY($1::bigint[])
            """,
            [PostgresArray.integers(Array(jobIDs))])
        {
            jobs[try row.decode("id")] = (
                try row.decode("project_text"), try row.decode("project_file"), try row.decode("media_root"),
                try JSONColumn.decode(try row.decode("media_pins", as: String.self)) as [String: MediaPin],
                try (row.decode("audio_gain", as: String?.self)).map { try JSONColumn.decode($0) as ProgrammeGain }
            )
        }
        return try rows.map { row in
            let job: Int64 = try row.decode("claimed_job")
            guard let document = jobs[job] else {
                throw PostgresError(message: "job \(job) vanished mid-claim", state: nil)
            }
            let work = try WorkItem(
                kind: row.decode("claimed_kind"), index: row.decode("claimed_index"),
                start: row.decode("claimed_start"), end: row.decode("claimed_end"))
            return ClaimedChunk(
                worker: try row.decode("claimed_worker"),
                key: AttemptKey(chunk: try row.decode("claimed_chunk"), attempt: try row.decode("claimed_attempt")),
                job: job,
                work: work,
                projectText: document.text, projectFile: document.file, mediaRoot: document.root,
                mediaPins: document.pins, programmeGain: work.kind == .video ? nil : document.gain)
        }
    }

    /// Leases the next chunk for `worker` (see `claim(_:leaseSeconds:)`).
    public func claim(worker: String, leaseSeconds: Double) throws -> ClaimedChunk? {
        try claim([ClaimRequest(worker: worker, count: 1)], leaseSeconds: leaseSeconds).first
    }

    /// Puts chunks whose lease ran out back in the queue and marks those attempts lost. A chunk
    /// whose attempts have now failed or been lost `lossesPerChunk` times fails its job: a
    /// worker that dies on a chunk every time (a crash in a decoder) must not crash forever.
    /// Three statements however many leases ran out: a rack of workers lost at once can leave
    /// tens of thousands, and the coordinator's loop waits on this.
    @discardableResult
    public func expireLeases() throws -> [AttemptKey] {
        try connection.transaction {
            let expired = try connection.query(
                """
                UPDATE chunks SET state = 'queued', worker_id = NULL, lease_expires = NULL
                WHERE state = 'running' AND lease_expires < now() RETURNING id, attempt, job_id
                """)
            let keys = try expired.map { row in
                AttemptKey(chunk: try row.decode("id"), attempt: try row.decode("attempt"))
            }
            if !keys.isEmpty {
                let chunks = PostgresArray.integers(keys.map(\.chunk))
                try connection.query(
                    """
                    UPDATE attempts a SET outcome = 'lost', finished_at = now(),
                           error = 'lease expired: worker went silent'
                    FROM unnest($1::bigint[], $2::integer[]) AS e(chunk, attempt)
                    WHERE a.chunk_id = e.chunk AND a.attempt = e.attempt AND a.outcome = 'running'
                    """, [chunks, PostgresArray.integers(keys.map(\.attempt))])
                // The chunks that have now failed or lost their worker often enough to fail their job.
                for row in try connection.query(
                    """
                    SELECT c.id, count(*) AS losses FROM chunks c JOIN attempts a ON a.chunk_id = c.id
                    WHERE c.id = ANY($1::bigint[]) AND a.outcome IN ('failed', 'lost') AND a.attempt > c.failures_from
                    GROUP BY c.id HAVING count(*) >= $2
                    """, [chunks, String(Self.lossesPerChunk)])
                {
                    let losses: Int64 = try row.decode("losses")
                    guard let record = try chunk(row.decode("id")) else { continue }
                    try failJob(
                        record.job,
                        error: "\(record.label) failed or lost its worker on \(losses) attempts (the last went silent: "
                            + "a worker may crash rendering it)")
                }
            }
            for job in Set(try expired.map { try $0.decode("job_id", as: Int64.self) }) { try notify(job: job) }
            try count(.leaseExpiries, by: Double(keys.count))
            return keys
        }
    }

    /// Stops the live attempts of jobs that failed or were cancelled: their chunks go back to
    /// the queue (never claimed again while the job is finished) and the attempts are marked
    /// cancelled. Returns each stopped attempt with the worker to tell.
    public func stopAttemptsOfFinishedJobs() throws -> [(key: AttemptKey, worker: String)] {
        try connection.transaction {
            let stopped = try connection.query(
                """
                WITH old AS (
                    SELECT c.id, c.attempt, c.worker_id FROM chunks c JOIN jobs j ON j.id = c.job_id
                    WHERE c.state = 'running' AND j.state IN ('failed', 'cancelled') FOR UPDATE OF c)
                UPDATE chunks c SET state = 'queued', worker_id = NULL, lease_expires = NULL
                FROM old WHERE c.id = old.id RETURNING old.id, old.attempt, old.worker_id
                """)
            let result = try stopped.map { row in
                (
                    key: AttemptKey(chunk: try row.decode("id"), attempt: try row.decode("attempt")),
                    worker: try row.decode("worker_id", as: String.self)
                )
            }
            guard !result.isEmpty else { return result }
            // One statement for every stopped attempt: a cancelled job of 100,000 chunks may
            // have thousands rendering.
            try connection.query(
                """
                UPDATE attempts a SET outcome = 'cancelled', finished_at = now(), error = 'job ' || j.state
                FROM unnest($1::bigint[], $2::integer[]) AS e(chunk, attempt)
                     JOIN chunks c ON c.id = e.chunk JOIN jobs j ON j.id = c.job_id
                WHERE a.chunk_id = e.chunk AND a.attempt = e.attempt AND a.outcome = 'running'
                """,
                [PostgresArray.integers(result.map(\.key.chunk)), PostgresArray.integers(result.map(\.key.attempt))])
            return result
        }
    }

    /// Attempts of `chunk` since its failure count was last reset that ended in one of `outcomes`.
    func attemptCount(chunk: Int64, outcomes: [AttemptOutcome]) throws -> Int64 {
        try connection.query(
            """
            SELECT count(*) AS attempts FROM attempts a JOIN chunks c ON c.id = a.chunk_id
            WHERE a.chunk_id = $1 AND a.outcome = ANY($2::text[]) AND a.attempt > c.failures_from
            """, [String(chunk), PostgresArray.text(outcomes.map(\.rawValue))])[0].decode("attempts")
    }
}
