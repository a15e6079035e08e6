extension Migrations {
    /// Step 18: a chunk's span in its own unit. A video chunk spans output frames
    /// (`start_frame`, `end_frame`), an audio block timeline samples (`start_sample`,
    /// `end_sample`); the other pair is NULL, which a CHECK ties to the kind. An attempt counts
    /// what it made the same way: `frames_done` and `fps` for video, `samples_done` for audio.
    /// Until now audio rows held samples in the frame columns; they move, running jobs included.
    /// A NULL span sums to nothing, so a sum of frames can no longer take in a block's samples.
    /// The claim function is step 8's, reading the span from either pair.
    static let units = """
        ALTER TABLE chunks ADD COLUMN start_sample bigint, ADD COLUMN end_sample bigint,
            ALTER COLUMN start_frame DROP NOT NULL, ALTER COLUMN end_frame DROP NOT NULL;
        UPDATE chunks SET start_sample = start_frame, end_sample = end_frame, start_frame = NULL, end_frame = NULL
        WHERE kind = 'audio';
        ALTER TABLE chunks ADD CONSTRAINT chunks_span_in_its_unit CHECK (
            CASE kind
                WHEN 'video' THEN start_frame IS NOT NULL AND end_frame IS NOT NULL
                                  AND start_sample IS NULL AND end_sample IS NULL
                ELSE start_sample IS NOT NULL AND end_sample IS NOT NULL AND start_frame IS NULL AND end_frame IS NULL
            END);

        ALTER TABLE attempts ADD COLUMN samples_done bigint;
        UPDATE attempts a SET samples_done = a.frames_done, frames_done = 0, fps = NULL
        FROM chunks c WHERE c.id = a.chunk_id AND c.kind = 'audio';

        CREATE OR REPLACE FUNCTION farm_claim(
            claimants text[], counts integer[], failures integer, lease double precision)
        RETURNS TABLE (claimed_worker text, claimed_chunk bigint, claimed_job bigint, claimed_kind text,
                       claimed_index integer, claimed_start bigint, claimed_end bigint, claimed_attempt integer)
        LANGUAGE plpgsql AS $$
        DECLARE
            remaining integer[] := counts;
            served text[] := '{}';
            job bigint;
            w integer;
            got integer;
            claimed record;
        BEGIN
            -- Draining workers get nothing.
            FOR w IN 1 .. coalesce(array_length(claimants, 1), 0) LOOP
                IF EXISTS (SELECT 1 FROM workers x WHERE x.id = claimants[w] AND x.draining) THEN
                    remaining[w] := 0;
                END IF;
            END LOOP;
            FOR job IN SELECT j.id FROM jobs j WHERE j.state IN ('queued', 'running') AND NOT j.paused
                       ORDER BY j.priority DESC, j.id LOOP
                EXIT WHEN coalesce((SELECT sum(r) FROM unnest(remaining) r), 0) = 0;
                got := 0;
                IF NOT EXISTS (SELECT 1 FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                               WHERE a.worker_id = ANY (claimants) AND a.outcome IN ('failed', 'lost')
                                 AND c.job_id = job AND a.attempt > c.failures_from) THEN
                    FOR claimed IN
                        WITH slots AS (
                            SELECT r.worker, r.position, row_number() OVER (ORDER BY r.position, s.n) AS slot
                            FROM unnest(claimants, remaining) WITH ORDINALITY AS r(worker, want, position)
                            CROSS JOIN LATERAL generate_series(1, r.want) AS s(n)),
                        picked AS (
                            SELECT q.id, row_number() OVER (ORDER BY q.audio DESC, q.idx) AS slot
                            FROM (SELECT c.id, c.kind = 'audio' AS audio, c.idx FROM chunks c
                                  WHERE c.job_id = job AND c.state = 'queued'
                                  ORDER BY (c.kind = 'audio') DESC, c.idx
                                  LIMIT (SELECT count(*) FROM slots)
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
                            INSERT INTO attempts (chunk_id, attempt, worker_id)
                            SELECT t.id, t.attempt, t.worker_id FROM taken t)
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
                        CONTINUE WHEN remaining[w] <= 0;
                        CONTINUE WHEN (SELECT count(DISTINCT a.chunk_id)
                                       FROM attempts a JOIN chunks o ON o.id = a.chunk_id
                                       WHERE o.job_id = job AND a.worker_id = claimants[w]
                                         AND a.outcome = 'failed' AND a.attempt > o.failures_from) >= failures;
                        FOR claimed IN
                            WITH picked AS (
                                SELECT c.id FROM chunks c
                                WHERE c.job_id = job AND c.state = 'queued'
                                  AND NOT (
                                    EXISTS (SELECT 1 FROM attempts a
                                            WHERE a.chunk_id = c.id AND a.worker_id = claimants[w]
                                              AND a.outcome IN ('failed', 'lost') AND a.attempt > c.failures_from)
                                    AND EXISTS (SELECT 1 FROM workers o
                                                WHERE o.id <> claimants[w] AND o.state <> 'lost' AND NOT o.draining
                                                AND NOT EXISTS (SELECT 1 FROM attempts b
                                                                WHERE b.chunk_id = c.id AND b.worker_id = o.id
                                                                AND b.outcome IN ('failed', 'lost')
                                                                AND b.attempt > c.failures_from)))
                                ORDER BY (c.kind = 'audio') DESC, c.idx
                                LIMIT remaining[w]
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
                                INSERT INTO attempts (chunk_id, attempt, worker_id)
                                SELECT t.id, t.attempt, t.worker_id FROM taken t)
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
                PERFORM pg_notify('farm', job::text);
            END LOOP;
            UPDATE workers SET state = 'rendering' WHERE id = ANY (served) AND state <> 'rendering';
        END
        $$;
        """
}
