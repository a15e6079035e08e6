import FarmCore
import Foundation

/// Handing chunks out: claims under a lease, renewals, expiry, and stopping finished jobs' work.
extension FarmStore {
    /// Leases the next chunk for `worker` unless it is draining: highest priority job first,
    /// then oldest, the audio task before video, video in frame order; paused jobs wait. Skips
    /// chunks this worker already failed while another live worker has not, and jobs on which
    /// it failed `failuresPerWorker` chunks.
    public func claim(worker: String, leaseSeconds: Double) throws -> ClaimedChunk? {
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
                        EXISTS (SELECT 1 FROM attempts a WHERE a.chunk_id = c.id AND a.worker_id = $1
                                AND a.outcome = 'failed' AND a.attempt > c.failures_from)
                        AND EXISTS (SELECT 1 FROM workers w WHERE w.id <> $1 AND w.state <> 'lost' AND NOT w.draining
                                    AND NOT EXISTS (SELECT 1 FROM attempts b
                                                    WHERE b.chunk_id = c.id AND b.worker_id = w.id
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
                          j.project_text, j.project_file, j.media_root, j.media_pins
                """, [row.string(0), worker, String(leaseSeconds)])[0]
            let job = chunk.int(0)
            try connection.query(
                "INSERT INTO attempts (chunk_id, attempt, worker_id) VALUES ($1, $2, $3)",
                [row.string(0), chunk.string(5), worker])
            try connection.query(
                "UPDATE jobs SET state = 'running', started_at = coalesce(started_at, now()) "
                    + "WHERE id = $1 AND state = 'queued'",
                [String(job)])
            try notify(job: job)
            return ClaimedChunk(
                key: AttemptKey(chunk: row.int(0), attempt: Int(chunk.int(5))), job: job,
                kind: try ChunkKind(stored: chunk.string(1)),
                chunk: Chunk(index: Int(chunk.int(2)), start: chunk.int(3), end: chunk.int(4)),
                projectText: chunk.string(6), projectFile: chunk.string(7), mediaRoot: chunk.string(8),
                mediaPins: try MediaPinsColumn.decode(chunk.string(9)))
        }
    }

    /// Extends the leases `worker` still holds; returns the attempts it reported that are not
    /// its live ones (re-leased, finished, cancelled, or never its own), which it should drop.
    public func renewLeases(worker: String, holding keys: [AttemptKey], leaseSeconds: Double) throws -> [AttemptKey] {
        var stale: [AttemptKey] = []
        for key in keys {
            let renewed = try connection.query(
                """
                UPDATE chunks SET lease_expires = now() + make_interval(secs => $4::double precision)
                WHERE id = $1 AND attempt = $2 AND worker_id = $3 AND state = 'running' RETURNING id
                """, [String(key.chunk), String(key.attempt), worker, String(leaseSeconds)])
            if renewed.isEmpty { stale.append(key) }
        }
        return stale
    }

    /// Puts chunks whose lease ran out back in the queue and marks those attempts lost. A chunk
    /// whose attempts have now failed or been lost `lossesPerChunk` times fails its job: a
    /// worker that dies on a chunk every time (a crash in a decoder) must not crash forever.
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
                    UPDATE attempts SET outcome = 'lost', finished_at = now(),
                           error = 'lease expired: worker went silent'
                    WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running'
                    """, [String(key.chunk), String(key.attempt)])
                try failJobIfChunkKeepsLosing(key.chunk)
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
            let result = stopped.map {
                (key: AttemptKey(chunk: $0.int(0), attempt: Int($0.int(1))), worker: $0.string(2))
            }
            for (key, _) in result {
                try connection.query(
                    """
                    UPDATE attempts SET outcome = 'cancelled', finished_at = now(),
                           error = 'job ' || (SELECT j.state FROM jobs j JOIN chunks c ON c.job_id = j.id
                                              WHERE c.id = $1)
                    WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running'
                    """, [String(key.chunk), String(key.attempt)])
            }
            return result
        }
    }

    private func failJobIfChunkKeepsLosing(_ chunk: Int64) throws {
        let losses = try attemptCount(chunk: chunk, outcomes: [.failed, .lost])
        guard losses >= Self.lossesPerChunk, let record = try self.chunk(chunk) else { return }
        try failJob(
            record.job,
            error: "\(record.label) failed or lost its worker on \(losses) attempts (the last went silent: "
                + "a worker may crash rendering it)")
    }

    /// Attempts of `chunk` since its failure count was last reset that ended in one of `outcomes`.
    func attemptCount(chunk: Int64, outcomes: [AttemptOutcome]) throws -> Int64 {
        try connection.query(
            """
            SELECT count(*) FROM attempts a JOIN chunks c ON c.id = a.chunk_id
            WHERE a.chunk_id = $1 AND a.outcome = ANY($2::text[]) AND a.attempt > c.failures_from
            """, [String(chunk), "{" + outcomes.map(\.rawValue).joined(separator: ",") + "}"])[0].int(0)
    }
}
