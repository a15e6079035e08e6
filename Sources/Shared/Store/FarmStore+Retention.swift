import FarmCore
import Foundation

/// Finished jobs' segments: kept so `farm retry --chunk` can rejoin a job with one chunk
/// rendered again, measured once the job ends, and removed when an operator asks (`farm prune`)
/// or when they are older than the coordinator's `--keep-segments`.
extension FarmStore {
    private static let finished = "('done', 'failed', 'cancelled')"

    /// Asks the coordinator to remove the segments of finished jobs: `job` alone, or every one
    /// that ended more than `olderThan` seconds ago. Returns the jobs asked for and the bytes
    /// measured in their folders (nil where not measured yet). A `job` still running is refused.
    public func requestPrune(job: Int64?, olderThan: Double?) throws -> [(job: Int64, bytes: Int64?)] {
        try connection.transaction {
            if let job {
                let record = try lockedJob(job)
                guard record.isFinished else {
                    throw FarmControlError.conflict(
                        "job \(job) is \(record.state.rawValue); only a finished job's segments can go")
                }
            }
            return try connection.query(
                """
                UPDATE jobs SET prune_requested = true
                WHERE state IN \(Self.finished) AND pruned_at IS NULL
                  AND ($1::bigint IS NULL OR id = $1::bigint)
                  AND ($2::double precision IS NULL
                       OR finished_at < now() - make_interval(secs => $2::double precision))
                RETURNING id, segment_bytes
                """,
                // Past a century every finished job is younger: the same answer, and PostgreSQL
                // takes no timestamp that far back.
                [job.map(String.init), olderThan.map { String(min($0, 100 * 365.25 * 86400)) }]
            ).map { row in (try row.decode("id"), try row.decode("segment_bytes")) }.sorted { $0.job < $1.job }
        }
    }

    /// Finished jobs whose segments should go now (asked for, or ended more than `keep`
    /// seconds ago), at most `limit`, oldest first.
    public func jobsToPrune(keep: Double?, limit: Int = 20) throws -> [Int64] {
        try connection.query(
            """
            SELECT id FROM jobs
            WHERE state IN \(Self.finished) AND pruned_at IS NULL
              AND (prune_requested OR ($1::double precision IS NOT NULL
                                       AND finished_at < now() - make_interval(secs => $1::double precision)))
            ORDER BY finished_at LIMIT $2
            """, [keep.map { String($0) }, String(limit)]
        ).map { try $0.decode("id") }
    }

    /// Records that `job`'s segments are gone, and runs `remove` (which deletes them) inside the
    /// transaction that holds the job: a `farm retry` waits for it, and then renders what is
    /// missing. False (nothing removed) when the job is no longer finished.
    public func prune(_ job: Int64, remove: () throws -> Void) throws -> Bool {
        try connection.transaction {
            guard try lockedJob(job).isFinished else { return false }
            try remove()
            try connection.query(
                "UPDATE jobs SET pruned_at = now(), prune_requested = false, segment_bytes = 0 WHERE id = $1",
                [String(job)])
            try notify(job: job)
            return true
        }
    }

    /// Finished jobs whose folders have not been measured yet, at most `limit`.
    public func jobsToMeasure(limit: Int = 20) throws -> [Int64] {
        try connection.query(
            """
            SELECT id FROM jobs WHERE state IN \(Self.finished) AND segment_bytes IS NULL
            ORDER BY finished_at LIMIT $1
            """, [String(limit)]
        ).map { try $0.decode("id") }
    }

    /// Records what `job`'s folder weighs, if the job is still finished (a retry may have
    /// reopened it since it was measured).
    public func recordSegmentBytes(_ job: Int64, bytes: Int64) throws {
        try connection.query(
            "UPDATE jobs SET segment_bytes = $2 WHERE id = $1 AND state IN \(Self.finished)",
            [String(job), String(bytes)])
    }

    /// Bytes the finished jobs' segments hold, and how many jobs hold some.
    public func segmentUsage() throws -> (bytes: Int64, jobs: Int) {
        let row = try connection.query(
            """
            SELECT coalesce(sum(segment_bytes), 0) AS bytes, count(*) FILTER (WHERE segment_bytes > 0) AS jobs
            FROM jobs
            """)[0]
        return (try row.decode("bytes"), try row.decode("jobs"))
    }
}
