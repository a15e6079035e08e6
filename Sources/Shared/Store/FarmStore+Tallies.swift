extension FarmStore {
    /// Folds each job's rows of chunk counts (one per statement that changed its chunks,
    /// migration 9) into one, and drops those of deleted jobs. Run by the coordinator now and
    /// then; readers sum whatever rows there are, so it changes no count. Returns the rows
    /// folded away.
    @discardableResult
    public func compactTallies() throws -> Int {
        let rows = try connection.query(
            """
            WITH folded AS (
                DELETE FROM chunk_tallies
                WHERE job_id IN (SELECT job_id FROM chunk_tallies GROUP BY job_id HAVING count(*) > 1)
                RETURNING *),
            kept AS (
                INSERT INTO chunk_tallies
                SELECT job_id, sum(queued), sum(running), sum(done), sum(done_frames) FROM folded
                GROUP BY job_id
                -- All zero: a deleted job's chunks, added then taken away.
                HAVING sum(queued) <> 0 OR sum(running) <> 0 OR sum(done) <> 0 OR sum(done_frames) <> 0
                RETURNING 1)
            SELECT (SELECT count(*) FROM folded) - (SELECT count(*) FROM kept) AS folded
            """)
        return try rows[0].decode("folded")
    }
}
