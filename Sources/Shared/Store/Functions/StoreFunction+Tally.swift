extension StoreFunction {
    /// Per-job counts of chunks by state kept as they change (step 9's `chunk_tallies`): each
    /// statement on `chunks` adds one row of differences per job it touched, so concurrent
    /// writers never wait on each other; each branch reads only the transition tables its
    /// event has.
    static let chunkTally = StoreFunction(
        name: "chunk_tally", since: 9,
        definition: """
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
                                 CASE WHEN n.state = 'done' AND n.kind = 'video'
                                      THEN n.end_frame - n.start_frame ELSE 0 END
                                     AS done_frames
                          FROM new_rows n
                          UNION ALL
                          SELECT o.job_id, -(o.state = 'queued')::int, -(o.state = 'running')::int,
                                 -(o.state = 'done')::int,
                                 CASE WHEN o.state = 'done' AND o.kind = 'video'
                                      THEN o.start_frame - o.end_frame ELSE 0 END
                          FROM old_rows o) d
                    GROUP BY d.job_id
                    HAVING sum(d.queued) <> 0 OR sum(d.running) <> 0 OR sum(d.done) <> 0 OR sum(d.done_frames) <> 0;
                END IF;
                RETURN NULL;
            END
            $$;
            """,
        triggers: [
            (
                "chunks_tally_insert",
                """
                CREATE TRIGGER chunks_tally_insert AFTER INSERT ON chunks
                    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunk_tally();
                """
            ),
            (
                "chunks_tally_update",
                """
                CREATE TRIGGER chunks_tally_update AFTER UPDATE ON chunks
                    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION chunk_tally();
                """
            ),
            (
                "chunks_tally_delete",
                """
                CREATE TRIGGER chunks_tally_delete AFTER DELETE ON chunks
                    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunk_tally();
                """
            ),
        ])
}
