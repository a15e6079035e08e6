extension Migrations {
    /// Step 9: per-job counts of chunks by state kept as they change, so that `farm status`
    /// and `farm watch` cost the same with a 100-chunk job as with a 100,000-chunk one.
    ///
    /// A statement-level trigger on `chunks` adds one row of differences per job it touched
    /// (no row is updated in place, so concurrent writers never wait on each other or
    /// deadlock); a job's counts are the sum of its rows, which `FarmStore.compactTallies`
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

        CREATE FUNCTION chunk_tally() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            -- Each branch reads only the transition tables its event has.
            IF TG_OP = 'INSERT' THEN
                INSERT INTO chunk_tallies
                SELECT n.job_id, count(*) FILTER (WHERE n.state = 'queued'),
                       count(*) FILTER (WHERE n.state = 'running'), count(*) FILTER (WHERE n.state = 'done'),
                       coalesce(sum(n.end_frame - n.start_frame)
                                FILTER (WHERE n.state = 'done' AND n.kind = 'video'), 0)
                FROM new_rows n GROUP BY n.job_id;
            ELSIF TG_OP = 'DELETE' THEN
                INSERT INTO chunk_tallies
                SELECT o.job_id, -count(*) FILTER (WHERE o.state = 'queued'),
                       -count(*) FILTER (WHERE o.state = 'running'), -count(*) FILTER (WHERE o.state = 'done'),
                       -coalesce(sum(o.end_frame - o.start_frame)
                                 FILTER (WHERE o.state = 'done' AND o.kind = 'video'), 0)
                FROM old_rows o GROUP BY o.job_id;
            ELSE
                INSERT INTO chunk_tallies
                SELECT d.job_id, sum(d.queued), sum(d.running), sum(d.done), sum(d.done_frames)
                FROM (SELECT n.job_id, (n.state = 'queued')::int AS queued, (n.state = 'running')::int AS running,
                             (n.state = 'done')::int AS done,
                             CASE WHEN n.state = 'done' AND n.kind = 'video' THEN n.end_frame - n.start_frame ELSE 0 END
                                 AS done_frames
                      FROM new_rows n
                      UNION ALL
                      SELECT o.job_id, -(o.state = 'queued')::int, -(o.state = 'running')::int,
                             -(o.state = 'done')::int,
                             CASE WHEN o.state = 'done' AND o.kind = 'video' THEN o.start_frame - o.end_frame ELSE 0 END
                      FROM old_rows o) d
                GROUP BY d.job_id
                HAVING sum(d.queued) <> 0 OR sum(d.running) <> 0 OR sum(d.done) <> 0 OR sum(d.done_frames) <> 0;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER chunks_tally_insert AFTER INSERT ON chunks
            REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunk_tally();
        CREATE TRIGGER chunks_tally_update AFTER UPDATE ON chunks
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunk_tally();
        CREATE TRIGGER chunks_tally_delete AFTER DELETE ON chunks
            REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunk_tally();

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
