extension StoreFunction {
    /// Claims for many workers in one statement: the coordinator fills every free render slot
    /// of the farm with one round trip (`FarmStore.claim`). Jobs by priority, then age; paused
    /// jobs and jobs waiting on others (`--after`) wait; a draining worker gets nothing. A job's
    /// chunks go only to workers whose tags cover its needs and whose kind is its kind (a job
    /// with no kind yet takes its first claimant's), so the bytes of its chunks never depend on
    /// which machine took them. Audio
    /// blocks before video, video in frame order; a job's audio is held while its loudness is
    /// settled. A worker that failed `failures` chunks of a job gets none of it, and none of a
    /// chunk it failed or lost (its lease ran out: it went silent, or takes work and never
    /// does it) while another live worker of the job's pool has not. While no claimant has
    /// failed or lost a chunk of a job (nearly always), its chunks go to all of them in one
    /// set of statements; otherwise worker by worker, with the per-chunk rule.
    static let claim = StoreFunction(
        name: "farm_claim", since: 24,
        definition: """
            CREATE FUNCTION farm_claim(
                claimants text[], counts integer[], failures integer, lease double precision)
            RETURNS TABLE (claimed_worker text, claimed_chunk bigint, claimed_job bigint, claimed_kind text,
                           claimed_index integer, claimed_start bigint, claimed_end bigint, claimed_attempt integer)
            LANGUAGE plpgsql AS $$
            DECLARE
                remaining integer[];
                served text[] := '{}';
                job bigint;
                needs text[];
                job_kind text;
                held boolean;
                allowed integer[];
                claimant_tags text[];
                claimant_kinds text[];
                combos text[];
                w integer;
                got integer;
                wanted integer;
                claimed record;
            BEGIN
                -- Each claimant's tags (comma-joined: a tag holds no comma) and kind, and nothing for
                -- a draining one, read in one statement; then the few distinct pairs among them, so
                -- that a job none of them may take is passed over at the cost of those pairs, not of
                -- the claimants.
                SELECT array_agg(coalesce(array_to_string(x.tags, ','), '') ORDER BY r.position),
                       array_agg(coalesce(x.node_kind, '') ORDER BY r.position),
                       array_agg(CASE WHEN x.draining THEN 0 ELSE r.want END ORDER BY r.position)
                INTO claimant_tags, claimant_kinds, remaining
                FROM unnest(claimants, counts) WITH ORDINALITY AS r(worker, want, position)
                     LEFT JOIN workers x ON x.id = r.worker;
                SELECT array_agg(DISTINCT p.tags || '|' || p.kind) INTO combos
                FROM unnest(claimant_tags, claimant_kinds, remaining) AS p(tags, kind, want) WHERE p.want > 0;
                FOR job, needs, job_kind, held IN SELECT j.id, j.requires, j.node_kind, j.audio_held FROM jobs j
                                        WHERE j.state IN ('queued', 'running') AND NOT j.paused
                                          AND j.waiting_for IS NULL
                                        ORDER BY j.priority DESC, j.id LOOP
                    EXIT WHEN coalesce((SELECT sum(r) FROM unnest(remaining) r), 0) = 0;
                    got := 0;
                    -- Nothing to hand out (every chunk rendering or done): through `chunks_queued`.
                    CONTINUE WHEN NOT EXISTS (
                        SELECT 1 FROM chunks c
                        WHERE c.job_id = job AND c.state = 'queued' AND NOT (held AND c.kind = 'audio'));
                    CONTINUE WHEN NOT EXISTS (
                        SELECT 1 FROM unnest(combos) AS g(pair)
                        WHERE string_to_array(split_part(g.pair, '|', 1), ',') @> needs
                          AND (job_kind IS NULL OR split_part(g.pair, '|', 2) = job_kind));
                    -- A job that no worker has rendered yet takes the kind of its first claimant
                    -- whose tags cover its needs.
                    IF job_kind IS NULL THEN
                        SELECT t.kind INTO job_kind
                        FROM unnest(claimant_tags, claimant_kinds, remaining)
                             WITH ORDINALITY AS t(tags, kind, want, position)
                        WHERE t.want > 0 AND string_to_array(t.tags, ',') @> needs ORDER BY t.position LIMIT 1;
                    END IF;
                    -- What each claimant may take of this job: nothing unless its tags cover the
                    -- job's and it is the job's kind.
                    SELECT array_agg(CASE WHEN string_to_array(t.tags, ',') @> needs AND t.kind = job_kind
                                          THEN t.want ELSE 0 END ORDER BY t.position)
                    INTO allowed
                    FROM unnest(claimant_tags, claimant_kinds, remaining)
                         WITH ORDINALITY AS t(tags, kind, want, position);
                    wanted := coalesce((SELECT sum(a) FROM unnest(allowed) a), 0);
                    CONTINUE WHEN wanted = 0;
                    -- Through `attempts_failed`: failed and lost attempts are few.
                    IF NOT EXISTS (SELECT 1 FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                                   WHERE a.worker_id = ANY (claimants) AND a.outcome IN ('failed', 'lost')
                                     AND c.job_id = job AND a.attempt > c.failures_from) THEN
                        FOR claimed IN
                            WITH slots AS (
                                SELECT r.worker, r.position, row_number() OVER (ORDER BY r.position, s.n) AS slot
                                FROM unnest(claimants, allowed) WITH ORDINALITY AS r(worker, want, position)
                                CROSS JOIN LATERAL generate_series(1, r.want) AS s(n)),
                            picked AS (
                                SELECT q.id, row_number() OVER (ORDER BY q.audio DESC, q.idx) AS slot
                                FROM (SELECT c.id, c.kind = 'audio' AS audio, c.idx FROM chunks c
                                      WHERE c.job_id = job AND c.state = 'queued' AND NOT (held AND c.kind = 'audio')
                                      ORDER BY (c.kind = 'audio') DESC, c.idx
                                      -- A number the planner sees (not a count of `slots`, which it
                                      -- guesses at a tenth of the job): with the tables' statistics
                                      -- it otherwise joins `taken` by reading every chunk.
                                      LIMIT wanted
                                      FOR UPDATE OF c SKIP LOCKED) q),
                            taken AS (
                                UPDATE chunks c SET state = 'running', attempt = c.attempt + 1, worker_id = s.worker,
                                                    lease_expires = now() + make_interval(secs => lease)
                                FROM picked p JOIN slots s ON s.slot = p.slot
                                WHERE c.id = p.id
                                RETURNING s.position, c.worker_id, c.id, c.job_id, c.kind, c.idx,
                                          coalesce(c.start_frame, c.start_sample) AS span_start,
                                          coalesce(c.end_frame, c.end_sample) AS span_end, c.attempt),
                            logged AS (
                                INSERT INTO attempts (chunk_id, attempt, worker_id, node_kind)
                                SELECT t.id, t.attempt, t.worker_id, job_kind FROM taken t)
                            SELECT * FROM taken t ORDER BY t.position, (t.kind = 'audio') DESC, t.idx
                        LOOP
                            remaining[claimed.position] := remaining[claimed.position] - 1;
                            served := served || claimed.worker_id;
                            got := got + 1;
                            claimed_worker := claimed.worker_id; claimed_chunk := claimed.id;
                            claimed_job := claimed.job_id; claimed_kind := claimed.kind;
                            claimed_index := claimed.idx; claimed_start := claimed.span_start;
                            claimed_end := claimed.span_end; claimed_attempt := claimed.attempt;
                            RETURN NEXT;
                        END LOOP;
                    ELSE
                        FOR w IN 1 .. coalesce(array_length(claimants, 1), 0) LOOP
                            CONTINUE WHEN remaining[w] <= 0 OR allowed[w] <= 0;
                            CONTINUE WHEN (SELECT count(DISTINCT a.chunk_id)
                                           FROM attempts a JOIN chunks o ON o.id = a.chunk_id
                                           WHERE o.job_id = job AND a.worker_id = claimants[w]
                                             AND a.outcome = 'failed' AND a.attempt > o.failures_from) >= failures;
                            FOR claimed IN
                                WITH picked AS (
                                    SELECT c.id FROM chunks c
                                    WHERE c.job_id = job AND c.state = 'queued' AND NOT (held AND c.kind = 'audio')
                                      AND NOT (
                                        EXISTS (SELECT 1 FROM attempts a
                                                WHERE a.chunk_id = c.id AND a.worker_id = claimants[w]
                                                  AND a.outcome IN ('failed', 'lost') AND a.attempt > c.failures_from)
                                        AND EXISTS (SELECT 1 FROM workers o
                                                    WHERE o.id <> claimants[w] AND o.state <> 'lost' AND NOT o.draining
                                                    AND o.tags @> needs AND o.node_kind = job_kind
                                                    AND NOT EXISTS (SELECT 1 FROM attempts b
                                                                    WHERE b.chunk_id = c.id AND b.worker_id = o.id
                                                                    AND b.outcome IN ('failed', 'lost')
                                                                    AND b.attempt > c.failures_from)))
                                    ORDER BY (c.kind = 'audio') DESC, c.idx
                                    LIMIT least(remaining[w], allowed[w])
                                    FOR UPDATE OF c SKIP LOCKED),
                                taken AS (
                                    UPDATE chunks c
                                    SET state = 'running', attempt = c.attempt + 1, worker_id = claimants[w],
                                        lease_expires = now() + make_interval(secs => lease)
                                    FROM picked WHERE c.id = picked.id
                                    RETURNING c.worker_id, c.id, c.job_id, c.kind, c.idx,
                                              coalesce(c.start_frame, c.start_sample) AS span_start,
                                              coalesce(c.end_frame, c.end_sample) AS span_end, c.attempt),
                                logged AS (
                                    INSERT INTO attempts (chunk_id, attempt, worker_id, node_kind)
                                    SELECT t.id, t.attempt, t.worker_id, job_kind FROM taken t)
                                SELECT * FROM taken t ORDER BY (t.kind = 'audio') DESC, t.idx
                            LOOP
                                remaining[w] := remaining[w] - 1;
                                served := served || claimed.worker_id;
                                got := got + 1;
                                claimed_worker := claimed.worker_id; claimed_chunk := claimed.id;
                                claimed_job := claimed.job_id; claimed_kind := claimed.kind;
                                claimed_index := claimed.idx; claimed_start := claimed.span_start;
                                claimed_end := claimed.span_end; claimed_attempt := claimed.attempt;
                                RETURN NEXT;
                            END LOOP;
                        END LOOP;
                    END IF;
                    CONTINUE WHEN got = 0;
                    UPDATE jobs SET state = 'running', started_at = coalesce(started_at, now())
                    WHERE id = job AND state = 'queued';
                    UPDATE jobs SET node_kind = job_kind WHERE id = job AND node_kind IS NULL;
                    PERFORM pg_notify('farm', job::text);
                END LOOP;
                UPDATE workers SET state = 'rendering' WHERE id = ANY (served) AND state <> 'rendering';
            END
            $$;
            """)
}
