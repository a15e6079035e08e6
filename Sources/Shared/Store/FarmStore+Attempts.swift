import FarmCore
import Foundation

/// How attempts end: acceptance behind the fence, failure, giving back. (Progress is a report:
/// `recordProgress` in FarmStore+Reports.)
extension FarmStore {
    /// Takes back an attempt the worker has not started (it is draining): the chunk goes back to
    /// the queue and the attempt is closed as cancelled, which counts as no failure.
    public func giveBack(_ key: AttemptKey, reason: String) throws {
        try connection.transaction { _ = try endAttempt(key, outcome: .cancelled, error: reason) }
    }

    /// Closes a running attempt (of `worker`, when given) with `outcome` and, while it is still
    /// its chunk's live attempt, puts the chunk back in the queue. Returns the chunk's job when
    /// it went back; nil, changing nothing, when the attempt is not `worker`'s.
    private func endAttempt(_ key: AttemptKey, worker: String? = nil, outcome: AttemptOutcome, error: String) throws
        -> Int64?
    {
        let ended = try connection.query(
            """
            UPDATE attempts SET outcome = $3, finished_at = now(), error = $4
            WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running' AND ($5::text IS NULL OR worker_id = $5)
                RETURNING 1
            """, [String(key.chunk), String(key.attempt), outcome.rawValue, error, worker])
        if worker != nil && ended.isEmpty { return nil }
        let requeued = try connection.query(
            """
            UPDATE chunks SET state = 'queued', worker_id = NULL, lease_expires = NULL
            WHERE id = $1 AND attempt = $2 AND state = 'running' RETURNING job_id
            """, [String(key.chunk), String(key.attempt)])
        guard let job = try requeued.first?.decode("job_id", as: Int64.self) else { return nil }
        try notify(job: job)
        return job
    }

    /// The chunk while `key` is its live attempt; nil once the fence has moved on.
    public func current(_ key: AttemptKey) throws -> ChunkRecord? {
        try connection.query(
            "SELECT \(ChunkRecord.columns) FROM chunks WHERE id = $1 AND attempt = $2 AND state = 'running'",
            [String(key.chunk), String(key.attempt)]
        ).first.map(ChunkRecord.init(row:))
    }

    public func chunk(_ id: Int64) throws -> ChunkRecord? {
        try connection.query("SELECT \(ChunkRecord.columns) FROM chunks WHERE id = $1", [String(id)]).first.map(
            ChunkRecord.init(row:))
    }

    /// Marks `key`'s result accepted if it is still the live attempt: the chunk and the attempt
    /// become done together. Returns false when the fence rejects it. The caller puts the file
    /// in place after this commits; a file lost in between is found missing before the join and
    /// rendered again (`requeue`). The farm's counters of work (`/metrics`) take the chunk's
    /// frames or the block's samples and the upload's `bytes` in the same transaction; `made` is
    /// what the worker says it made, recorded on the attempt, with the `instants` it passed
    /// (`farm trace`) when the coordinator has them.
    public func accept(_ key: AttemptKey, made: WorkMade, bytes: Int64 = 0, instants: AttemptInstants? = nil) throws
        -> Bool
    {
        try connection.transaction {
            let locked = try connection.query(
                "SELECT job_id FROM chunks WHERE id = $1 AND attempt = $2 AND state = 'running' FOR UPDATE",
                [String(key.chunk), String(key.attempt)])
            guard let job = try locked.first?.decode("job_id", as: Int64.self) else { return false }
            let chunk = try connection.query(
                """
                UPDATE chunks SET state = 'done', lease_expires = NULL WHERE id = $1
                RETURNING end_frame - start_frame AS frames, end_sample - start_sample AS samples
                """, [String(key.chunk)])[0]
            let (fps, frames, samples): (String?, String, String?) =
                switch made {
                case .frames(let count, let fps): (String(fps), String(count), nil)
                case .samples(let count): (nil, "0", String(count))
                }
            try connection.query(
                """
                UPDATE attempts SET outcome = 'done', finished_at = now(), fps = $3, frames_done = $4,
                    samples_done = $5, \(AttemptInstants.assignments(from: 6))
                WHERE chunk_id = $1 AND attempt = $2
                """, [String(key.chunk), String(key.attempt), fps, frames, samples] + AttemptInstants.values(instants))
            // One of the two is NULL: the pair of the other unit.
            let framesRendered = try chunk.decode("frames", as: Int64?.self) ?? 0
            let samplesRendered = try chunk.decode("samples", as: Int64?.self) ?? 0
            try count([
                (.uploadBytes, Double(bytes)), (.framesRendered, Double(framesRendered)),
                (.samplesRendered, Double(samplesRendered)),
            ])
            try notify(job: job)
            return true
        }
    }

    /// Whether `key` is the attempt its chunk was accepted from (a verdict repeated after the
    /// database went away mid-commit finds its own acceptance).
    public func isAccepted(_ key: AttemptKey) throws -> Bool {
        guard let chunk = try chunk(key.chunk) else { return false }
        return chunk.state == .done && chunk.attempt == key.attempt
    }

    /// Records a failed attempt (of `worker`, when a worker reports it) and re-queues its chunk.
    /// When the chunk has now failed `failuresPerChunk` times, or at once when the failure is
    /// `fatal`, fails its job with this error and returns the job id.
    public func fail(
        _ key: AttemptKey, worker: String? = nil, error: String, fatal: Bool = false, log: [String]? = nil
    ) throws -> Int64? {
        try connection.transaction {
            guard let job = try endAttempt(key, worker: worker, outcome: .failed, error: error) else { return nil }
            if let log { try recordLog(key, lines: log) }
            try count(.failedAttempts)
            if fatal {
                try failJob(job, error: error)
                return job
            }
            let failures = try attemptCount(chunk: key.chunk, outcomes: [.failed])
            guard failures >= Self.failuresPerChunk else { return nil }
            let what = try self.chunk(key.chunk)?.label ?? "a chunk"
            try failJob(job, error: "\(what) failed on \(failures) attempts: \(error)")
            return job
        }
    }

    /// Fails a job that has not ended yet, with `error` as its reason.
    func failJob(_ job: Int64, error: String) throws {
        try connection.query(
            """
            UPDATE jobs SET state = 'failed', finished_at = now(), error = $2
            WHERE id = $1 AND state NOT IN ('done', 'failed', 'cancelled')
            """, [String(job), error])
    }

    /// Keeps the tail of the worker's log for an attempt (`AttemptLog`), with its result or its
    /// failure, for `farm logs JOB --chunk N`.
    public func recordLog(_ key: AttemptKey, lines: [String]) throws {
        guard !lines.isEmpty else { return }
        try connection.query(
            "UPDATE attempts SET log = $3 WHERE chunk_id = $1 AND attempt = $2",
            [String(key.chunk), String(key.attempt), lines.joined(separator: "\n")])
    }
}
