extension Migrations {
    /// Step 9: per-job counts of chunks by state kept as they change, so that `farm status`
    /// and `farm watch` cost the same with a 100-chunk job as with a 100,000-chunk one.
    ///
    /// A statement-level trigger on `chunks` (`StoreFunction.chunkTally`) adds one row of
    /// differences per job it touched (no row is updated in place, so concurrent writers never
    /// wait on each other or deadlock); a job's counts are the sum of its rows, which `FarmStore.compactTallies`
    /// folds into one now and then. The few chunks that were ever tried and are not done (the
    /// ones rendering, and those waiting after a failure) are reached through `chunks_tried`.
    static let tallies = """
        CREATE TABLE chunk_tallies (
            job_id      bigint NOT NULL,
            queued      bigint NOT NULL,
            running     bigint NOT NULL,
            done        bigint NOT NULL,
            -- Video frames of the done chunks.
            done_frames bigint NOT NULL
        );
        CREATE INDEX chunk_tallies_job ON chunk_tallies (job_id);


        INSERT INTO chunk_tallies
        SELECT job_id, count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running'),
               count(*) FILTER (WHERE state = 'done'),
               coalesce(sum(end_frame - start_frame) FILTER (WHERE state = 'done' AND kind = 'video'), 0)
        FROM chunks GROUP BY job_id;

        CREATE INDEX chunks_tried ON chunks (job_id) WHERE state <> 'done' AND attempt > 0;

        -- Video frames done before the job's current run began (a retry of an ended job keeps
        -- its done chunks): its fps counts only what this run rendered.
        ALTER TABLE jobs ADD COLUMN frames_kept bigint NOT NULL DEFAULT 0;
        UPDATE jobs j SET frames_kept = (
            SELECT coalesce(sum(c.end_frame - c.start_frame), 0)
            FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
            WHERE c.job_id = j.id AND c.kind = 'video' AND c.state = 'done' AND a.started_at < j.started_at)
        WHERE j.started_at IS NOT NULL;
        """
}
