import Foundation

/// The farm's state in PostgreSQL: jobs, their chunks, workers and every attempt.
///
/// Everything the coordinator knows lives here, so a restarted coordinator rebuilds from it.
/// A chunk is claimed for a worker in one transaction (`FOR UPDATE SKIP LOCKED`, so concurrent
/// claimers never wait on or take the same row), which bumps its attempt number. A result is
/// accepted only while its attempt is still the chunk's current one: that number is the fence.
public final class FarmStore {
    public let connection: PostgresConnection

    /// Failed attempts of one chunk that fail its job.
    public static let failuresPerChunk = 3
    /// Chunks of one job a worker may fail before that job is kept from it.
    public static let failuresPerWorker = 3

    public init(url: String) throws {
        connection = try PostgresConnection(url: url)
        try Migrations.apply(on: connection)
    }

    // MARK: Jobs

    /// Records a job and its chunks (the audio task first); returns the job id.
    public func submit(_ job: JobSubmission) throws -> Int64 {
        try connection.transaction {
            let id = try connection.query(
                """
                INSERT INTO jobs (name, priority, project_file, project_text, media_root, output_path, container,
                                  fps, frame_count, width, height)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id
                """,
                [
                    job.name, String(job.priority), job.projectFile, job.projectText, job.mediaRoot, job.outputPath,
                    job.container.rawValue, job.fps.description, String(job.frameCount), String(job.width), String(job.height),
                ])[0].int(0)
            try connection.query(
                "INSERT INTO chunks (job_id, kind, idx, start_frame, end_frame) VALUES ($1, 'audio', 0, 0, $2)",
                [String(id), String(job.frameCount)])
            for chunk in job.chunks {
                try connection.query(
                    "INSERT INTO chunks (job_id, kind, idx, start_frame, end_frame) VALUES ($1, 'video', $2, $3, $4)",
                    [String(id), String(chunk.index), String(chunk.start), String(chunk.end)])
            }
            try notify(job: id)
            return id
        }
    }

    public func job(_ id: Int64) throws -> JobRecord? {
        try connection.query("SELECT \(JobRecord.columns) FROM jobs WHERE id = $1", [String(id)]).first.map(JobRecord.init)
    }

    /// Video chunks of a job in frame order.
    public func videoChunks(job: Int64) throws -> [Chunk] {
        try connection.query(
            "SELECT idx, start_frame, end_frame FROM chunks WHERE job_id = $1 AND kind = 'video' ORDER BY idx", [String(job)]
        ).map { Chunk(index: Int($0.int(0)), start: $0.int(1), end: $0.int(2)) }
    }

    /// Unfinished jobs whose every chunk is done: they are waiting to be joined.
    public func jobsReadyToJoin() throws -> [JobRecord] {
        try connection.query(
            """
            SELECT \(JobRecord.columns) FROM jobs j
            WHERE state IN ('queued', 'running', 'joining')
              AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.job_id = j.id AND c.state <> 'done')
            ORDER BY id
            """
        ).map(JobRecord.init)
    }

    /// Marks a job as being joined if it still is live with every chunk done. The job row is
    /// locked first, as `farm retry` and `farm cancel` lock it, so neither can slip in between
    /// the check and the mark. Returns false when the join must not start.
    public func markJoining(job: Int64) throws -> Bool {
        try connection.transaction {
            let state = try connection.query("SELECT state FROM jobs WHERE id = $1 FOR UPDATE", [String(job)]).first?.string(0)
            guard let state, ["queued", "running", "joining"].contains(state) else { return false }
            let open = try connection.query(
                "SELECT count(*) FROM chunks WHERE job_id = $1 AND state <> 'done'", [String(job)])[0].int(0)
            guard open == 0 else { return false }
            try connection.query("UPDATE jobs SET state = 'joining' WHERE id = $1", [String(job)])
            try notify(job: job)
            return true
        }
    }

    /// Ends a job after its join: done when `error` is nil, failed with that text otherwise.
    /// Returns false when the job left `joining` meanwhile (cancelled, or cancelled and sent
    /// back by `farm retry`): then this join's result does not count.
    @discardableResult
    public func finish(job: Int64, error: String?) throws -> Bool {
        let updated = try connection.query(
            """
            UPDATE jobs SET state = CASE WHEN $2::text IS NULL THEN 'done' ELSE 'failed' END,
                            error = $2, finished_at = now()
            WHERE id = $1 AND state = 'joining' RETURNING id
            """, [String(job), error])
        try notify(job: job)
        return !updated.isEmpty
    }

    /// Puts chunks back in the queue whose accepted segments are gone (removed after an earlier
    /// join), so a job sent back by `farm retry` renders them again instead of failing its join.
    public func requeue(job: Int64, chunks indexes: [Int], kind: Assignment.Kind) throws {
        for index in indexes { try requeueWithFreshTries(job: job, kind: kind, index: index) }
        try connection.query("UPDATE jobs SET state = 'running' WHERE id = $1 AND state = 'joining'", [String(job)])
        try notify(job: job)
    }

    /// Queues a chunk that is not rendering to be rendered again, with a fresh set of tries:
    /// the failures before now stop counting toward the limits.
    func requeueWithFreshTries(job: Int64, kind: Assignment.Kind, index: Int) throws {
        try connection.query(
            """
            UPDATE chunks SET state = 'queued', worker_id = NULL, lease_expires = NULL, failures_from = attempt
            WHERE job_id = $1 AND kind = $2 AND idx = $3 AND state <> 'running'
            """, [String(job), kind.rawValue, String(index)])
    }

    /// Wakes whoever listens on channel `farm` (watchers); the payload is the job id.
    func notify(job: Int64) throws {
        try connection.query("SELECT pg_notify('farm', $1)", [String(job)])
    }

    // MARK: Workers

    /// Records that a worker was heard; returns whether an operator has it draining.
    @discardableResult
    public func workerSeen(_ info: WorkerInfo, rendering: Bool) throws -> Bool {
        try connection.query(
            """
            INSERT INTO workers (id, host, cores, slots, version, state) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (id) DO UPDATE SET host = $2, cores = $3, slots = $4, version = $5, state = $6, last_seen = now()
            RETURNING draining
            """,
            [info.id, info.host, String(info.cores), String(info.slots), info.version, rendering ? "rendering" : "idle"]
        ).first?.bool(0) ?? false
    }

    public func workerLost(_ id: String) throws {
        try connection.query("UPDATE workers SET state = 'lost' WHERE id = $1", [id])
    }

    /// Removes workers that are gone for good; their attempts keep their ids.
    public func forgetWorkers(_ ids: [String]) throws {
        for id in ids { try connection.query("DELETE FROM workers WHERE id = $1", [id]) }
    }

    // MARK: Chunks and attempts

    /// Leases the next chunk for `worker` unless it is draining: highest priority job first,
    /// then oldest, the audio task before video, video in frame order; paused jobs wait. Skips
    /// chunks this worker already failed while another live worker has not, and jobs on which
    /// it failed `failuresPerWorker` chunks.
    public func claim(worker: String, leaseSeconds: Double) throws -> Assignment? {
        try connection.transaction {
            guard
                let row = try connection.query(
                    """
                    SELECT c.id FROM chunks c JOIN jobs j ON j.id = c.job_id
                    WHERE c.state = 'queued' AND j.state IN ('queued', 'running') AND NOT j.paused
                      AND NOT coalesce((SELECT w.draining FROM workers w WHERE w.id = $1), false)
                      AND (SELECT count(DISTINCT a.chunk_id) FROM attempts a JOIN chunks o ON o.id = a.chunk_id
                           WHERE o.job_id = j.id AND a.worker_id = $1 AND a.outcome = 'failed'
                             AND a.attempt > o.failures_from) < $2
                      AND NOT (
                        EXISTS (SELECT 1 FROM attempts a WHERE a.chunk_id = c.id AND a.worker_id = $1 AND a.outcome = 'failed'
                                AND a.attempt > c.failures_from)
                        AND EXISTS (SELECT 1 FROM workers w WHERE w.id <> $1 AND w.state <> 'lost' AND NOT w.draining
                                    AND NOT EXISTS (SELECT 1 FROM attempts b WHERE b.chunk_id = c.id AND b.worker_id = w.id
                                                    AND b.outcome = 'failed' AND b.attempt > c.failures_from)))
                    ORDER BY j.priority DESC, j.id, c.kind = 'audio' DESC, c.idx
                    LIMIT 1
                    FOR UPDATE OF c SKIP LOCKED
                    """, [worker, String(Self.failuresPerWorker)]
                ).first
            else { return nil }
            let chunk = try connection.query(
                """
                UPDATE chunks c SET state = 'running', attempt = c.attempt + 1, worker_id = $2,
                                    lease_expires = now() + make_interval(secs => $3::double precision)
                FROM jobs j WHERE c.id = $1 AND j.id = c.job_id
                RETURNING c.job_id, c.kind, c.idx, c.start_frame, c.end_frame, c.attempt,
                          j.project_text, j.project_file, j.media_root
                """, [row.string(0), worker, String(leaseSeconds)])[0]
            let job = chunk.int(0)
            try connection.query(
                "INSERT INTO attempts (chunk_id, attempt, worker_id) VALUES ($1, $2, $3)", [row.string(0), chunk.string(5), worker])
            try connection.query(
                "UPDATE jobs SET state = 'running', started_at = coalesce(started_at, now()) WHERE id = $1 AND state = 'queued'",
                [String(job)])
            try notify(job: job)
            return Assignment(
                key: AttemptKey(chunk: row.int(0), attempt: Int(chunk.int(5))), job: job,
                kind: Assignment.Kind(rawValue: chunk.string(1)) ?? .video, index: Int(chunk.int(2)), start: chunk.int(3),
                end: chunk.int(4), projectText: chunk.string(6), projectFile: chunk.string(7), mediaRoot: chunk.string(8))
        }
    }

    /// Extends the leases `worker` still holds; returns the attempts it reported that are no
    /// longer current (re-leased, finished or cancelled), which it should drop.
    public func renewLeases(worker: String, holding keys: [AttemptKey], leaseSeconds: Double) throws -> [AttemptKey] {
        var stale: [AttemptKey] = []
        for key in keys {
            let renewed = try connection.query(
                """
                UPDATE chunks SET lease_expires = now() + make_interval(secs => $4::double precision)
                WHERE id = $1 AND attempt = $2 AND worker_id = $3 AND state = 'running' RETURNING id
                """, [String(key.chunk), String(key.attempt), worker, String(leaseSeconds)])
            if renewed.isEmpty, try current(key) == nil { stale.append(key) }
        }
        return stale
    }

    /// Puts chunks whose lease ran out back in the queue and marks those attempts lost.
    @discardableResult
    public func expireLeases() throws -> [AttemptKey] {
        try connection.transaction {
            let expired = try connection.query(
                """
                UPDATE chunks SET state = 'queued', worker_id = NULL, lease_expires = NULL
                WHERE state = 'running' AND lease_expires < now() RETURNING id, attempt, job_id
                """)
            let keys = expired.map { AttemptKey(chunk: $0.int(0), attempt: Int($0.int(1))) }
            for key in keys {
                try connection.query(
                    """
                    UPDATE attempts SET outcome = 'lost', finished_at = now(), error = 'lease expired: worker went silent'
                    WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running'
                    """, [String(key.chunk), String(key.attempt)])
            }
            for job in Set(expired.map { $0.int(2) }) { try notify(job: job) }
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
            let result = stopped.map { (key: AttemptKey(chunk: $0.int(0), attempt: Int($0.int(1))), worker: $0.string(2)) }
            for (key, _) in result {
                try connection.query(
                    """
                    UPDATE attempts SET outcome = 'cancelled', finished_at = now(),
                           error = 'job ' || (SELECT j.state FROM jobs j JOIN chunks c ON c.job_id = j.id WHERE c.id = $1)
                    WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running'
                    """, [String(key.chunk), String(key.attempt)])
            }
            return result
        }
    }

    public func recordProgress(_ report: ProgressReport) throws {
        let updated = try connection.query(
            """
            UPDATE attempts SET frames_done = greatest(frames_done, $3), fps = $4
            WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running' RETURNING (SELECT job_id FROM chunks WHERE id = $1)
            """, [String(report.key.chunk), String(report.key.attempt), String(report.frames), String(report.fps)])
        if let job = updated.first?.int(0) { try notify(job: job) }
    }

    /// Takes back an attempt the worker has not started (it is draining): the chunk goes back to
    /// the queue and the attempt is closed as cancelled, which counts as no failure.
    public func giveBack(_ key: AttemptKey, reason: String) throws {
        try connection.transaction { _ = try endAttempt(key, outcome: "cancelled", error: reason) }
    }

    /// Closes a running attempt with `outcome` and, while it is still its chunk's live attempt,
    /// puts the chunk back in the queue. Returns the chunk's job when it went back.
    private func endAttempt(_ key: AttemptKey, outcome: String, error: String) throws -> Int64? {
        try connection.query(
            """
            UPDATE attempts SET outcome = $3, finished_at = now(), error = $4
            WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running'
            """, [String(key.chunk), String(key.attempt), outcome, error])
        let requeued = try connection.query(
            """
            UPDATE chunks SET state = 'queued', worker_id = NULL, lease_expires = NULL
            WHERE id = $1 AND attempt = $2 AND state = 'running' RETURNING job_id
            """, [String(key.chunk), String(key.attempt)])
        guard let job = requeued.first?.int(0) else { return nil }
        try notify(job: job)
        return job
    }

    /// The chunk while `key` is its live attempt; nil once the fence has moved on.
    public func current(_ key: AttemptKey) throws -> ChunkRecord? {
        try connection.query(
            "SELECT \(ChunkRecord.columns) FROM chunks WHERE id = $1 AND attempt = $2 AND state = 'running'",
            [String(key.chunk), String(key.attempt)]
        ).first.map(ChunkRecord.init)
    }

    public func chunk(_ id: Int64) throws -> ChunkRecord? {
        try connection.query("SELECT \(ChunkRecord.columns) FROM chunks WHERE id = $1", [String(id)]).first.map(ChunkRecord.init)
    }

    /// Accepts `key`'s result if it is still the live attempt: `store` puts the file in place
    /// while the chunk row is locked, then the chunk and attempt are marked done together.
    /// Returns false (and stores nothing) when the fence rejects it.
    public func accept(_ key: AttemptKey, fps: Double, frames: Int64, store: () throws -> Void) throws -> Bool {
        try connection.transaction {
            let locked = try connection.query(
                "SELECT job_id FROM chunks WHERE id = $1 AND attempt = $2 AND state = 'running' FOR UPDATE",
                [String(key.chunk), String(key.attempt)])
            guard let job = locked.first?.int(0) else { return false }
            try store()
            try connection.query(
                "UPDATE chunks SET state = 'done', lease_expires = NULL WHERE id = $1", [String(key.chunk)])
            try connection.query(
                """
                UPDATE attempts SET outcome = 'done', finished_at = now(), fps = $3, frames_done = $4
                WHERE chunk_id = $1 AND attempt = $2
                """, [String(key.chunk), String(key.attempt), String(fps), String(frames)])
            try notify(job: job)
            return true
        }
    }

    /// Records a failed attempt and re-queues its chunk. When the chunk has now failed
    /// `failuresPerChunk` times, fails its job with this error and returns the job id.
    public func fail(_ key: AttemptKey, error: String) throws -> Int64? {
        try connection.transaction {
            guard let job = try endAttempt(key, outcome: "failed", error: error) else { return nil }
            let failures = try connection.query(
                """
                SELECT count(*) FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                WHERE a.chunk_id = $1 AND a.outcome = 'failed' AND a.attempt > c.failures_from
                """, [String(key.chunk)])[0].int(0)
            guard failures >= Self.failuresPerChunk else { return nil }
            let chunk = try self.chunk(key.chunk)
            let what = chunk.map { $0.kind == .audio ? "the audio task" : "chunk \($0.index) (frames \($0.start)..\($0.end))" } ?? "a chunk"
            try connection.query(
                """
                UPDATE jobs SET state = 'failed', finished_at = now(), error = $2
                WHERE id = $1 AND state NOT IN ('done', 'failed', 'cancelled')
                """, [String(job), "\(what) failed on \(failures) attempts: \(error)"])
            return job
        }
    }
}

/// A job row, as the coordinator and the CLI read it.
public struct JobRecord: Sendable {
    static let columns =
        "id, name, state, priority, output_path, container, fps, frame_count, error, paused, project_file, width, height"

    public var id: Int64
    public var name: String
    public var state: String
    public var priority: Int
    public var outputPath: String
    public var container: ExportSettings.Container
    public var fps: Rational
    public var frameCount: Int64
    public var error: String?
    public var paused: Bool
    public var projectFile: String
    public var width: Int
    public var height: Int

    init(_ row: Row) {
        id = row.int(0)
        name = row.string(1)
        state = row.string(2)
        priority = Int(row.int(3))
        outputPath = row.string(4)
        container = ExportSettings.Container(rawValue: row.string(5)) ?? .mp4
        fps = Rational(parsing: row.string(6)) ?? Rational(30)
        frameCount = row.int(7)
        error = row[8]
        paused = row.bool(9)
        projectFile = row.string(10)
        width = Int(row.int(11))
        height = Int(row.int(12))
    }

    public var isFinished: Bool { ["done", "failed", "cancelled"].contains(state) }
}

/// A chunk row.
public struct ChunkRecord: Sendable {
    static let columns = "id, job_id, kind, idx, start_frame, end_frame, state, attempt, worker_id"

    public var id: Int64
    public var job: Int64
    public var kind: Assignment.Kind
    public var index: Int
    public var start: Int64
    public var end: Int64
    public var state: String
    public var attempt: Int
    public var worker: String?

    init(_ row: Row) {
        id = row.int(0)
        job = row.int(1)
        kind = Assignment.Kind(rawValue: row.string(2)) ?? .video
        index = Int(row.int(3))
        start = row.int(4)
        end = row.int(5)
        state = row.string(6)
        attempt = Int(row.int(7))
        worker = row[8]
    }

    public var chunk: Chunk { Chunk(index: index, start: start, end: end) }
}
