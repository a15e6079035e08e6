import FarmCore
import FarmPostgres

extension FarmStore {
    /// Of `jobs`, those still rendering pictures whose every audio block is done: their sound
    /// can be measured before the join (`SoundPremeasures`). Each test reads the first entry
    /// of an index ordered sound first (`chunks_queued`, `chunks_tried`), never a job's chunks.
    public func jobsWithSoundDone(among jobs: [Int64]) throws -> [JobRecord] {
        guard !jobs.isEmpty else { return [] }
        return try connection.query(
            """
            SELECT \(JobRecord.columns) FROM jobs j
            WHERE j.id = ANY($1::bigint[]) AND j.state IN ('queued', 'running') AND j.waiting_for IS NULL
              AND EXISTS (SELECT 1 FROM chunks c WHERE c.job_id = j.id AND c.kind = 'audio')
              AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.job_id = j.id AND c.state = 'queued' AND c.kind = 'audio')
              AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.job_id = j.id AND c.state <> 'done' AND c.attempt > 0
                                                     AND c.kind = 'audio')
              AND EXISTS (SELECT 1 FROM chunks c WHERE c.job_id = j.id AND c.state <> 'done' AND c.kind = 'video')
            ORDER BY id
            """, [PostgresArray.integers(jobs)]
        ).map(JobRecord.init(row:))
    }

    /// Of `jobs`, those that ended without a join to come (cancelled, failed, done).
    public func finishedJobs(among jobs: [Int64]) throws -> [Int64] {
        guard !jobs.isEmpty else { return [] }
        return try connection.query(
            "SELECT id FROM jobs WHERE id = ANY($1::bigint[]) AND state IN ('done', 'failed', 'cancelled')",
            [PostgresArray.integers(jobs)]
        ).map { try $0.decode("id", as: Int64.self) }
    }
}
