/// The farm's schema as numbered steps. Each runs once, in order, inside one transaction with
/// its row in `schema_migrations`; an advisory lock keeps two coordinators from racing.
/// Never edit a published step: add a new one.
public enum Migrations {
    static let steps: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE jobs (
                id            bigserial PRIMARY KEY,
                name          text NOT NULL,
                state         text NOT NULL DEFAULT 'queued'
                              CHECK (state IN ('queued', 'running', 'joining', 'done', 'failed', 'cancelled')),
                paused        boolean NOT NULL DEFAULT false,
                priority      integer NOT NULL DEFAULT 0,
                project_file  text NOT NULL,
                project_text  text NOT NULL,
                media_root    text NOT NULL,
                output_path   text NOT NULL,
                container     text NOT NULL,
                fps           text NOT NULL,
                frame_count   bigint NOT NULL,
                width         integer NOT NULL,
                height        integer NOT NULL,
                error         text,
                submitted_at  timestamptz NOT NULL DEFAULT now(),
                started_at    timestamptz,
                finished_at   timestamptz
            );
            CREATE TABLE chunks (
                id            bigserial PRIMARY KEY,
                job_id        bigint NOT NULL REFERENCES jobs ON DELETE CASCADE,
                kind          text NOT NULL CHECK (kind IN ('video', 'audio')),
                idx           integer NOT NULL,
                start_frame   bigint NOT NULL,
                end_frame     bigint NOT NULL,
                state         text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
                attempt       integer NOT NULL DEFAULT 0,
                worker_id     text,
                lease_expires timestamptz,
                UNIQUE (job_id, kind, idx)
            );
            CREATE INDEX chunks_open ON chunks (job_id) WHERE state <> 'done';
            CREATE TABLE workers (
                id            text PRIMARY KEY,
                host          text NOT NULL,
                cores         integer NOT NULL,
                slots         integer NOT NULL,
                version       text NOT NULL,
                state         text NOT NULL DEFAULT 'idle' CHECK (state IN ('idle', 'rendering', 'lost')),
                draining      boolean NOT NULL DEFAULT false,
                first_seen    timestamptz NOT NULL DEFAULT now(),
                last_seen     timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE attempts (
                id            bigserial PRIMARY KEY,
                chunk_id      bigint NOT NULL REFERENCES chunks ON DELETE CASCADE,
                attempt       integer NOT NULL,
                worker_id     text NOT NULL,
                started_at    timestamptz NOT NULL DEFAULT now(),
                finished_at   timestamptz,
                outcome       text NOT NULL DEFAULT 'running'
                              CHECK (outcome IN ('running', 'done', 'failed', 'lost', 'cancelled')),
                error         text,
                frames_done   bigint NOT NULL DEFAULT 0,
                fps           double precision,
                UNIQUE (chunk_id, attempt)
            );
            CREATE INDEX attempts_worker ON attempts (worker_id, outcome);
            """
        ),
        (
            2,
            """
            -- Failed attempts numbered above this count toward the failure limits; `farm retry`
            -- moves it up, so a retried chunk gets a fresh set of tries.
            ALTER TABLE chunks ADD COLUMN failures_from integer NOT NULL DEFAULT 0;
            """
        ),
        (
            3,
            """
            -- Sound is rendered as audio blocks (kind 'audio', one row each) whose start_frame and
            -- end_frame hold timeline sample indices; the join needs the rate to time them.
            ALTER TABLE jobs ADD COLUMN sample_rate integer NOT NULL DEFAULT 48000;
            """
        ),
        (
            4,
            """
            -- The farm's identity. Its data folder records it, so two databases never share one
            -- folder: their job numbers would collide in jobs/N.
            CREATE TABLE farm_identity (id text PRIMARY KEY);
            INSERT INTO farm_identity VALUES (md5(random()::text || clock_timestamp()::text));
            """
        ),
        (
            5,
            """
            -- Each job's media as submitted (asset id -> size and SHA-256, JSON): workers render
            -- that version or fail the job. Digests are kept by path and stat stamp so a file is
            -- hashed once per version, however often it is submitted.
            ALTER TABLE jobs ADD COLUMN media_pins text NOT NULL DEFAULT '{}';
            -- Where the leading coordinator may write outputs; `farm submit` checks it up front.
            ALTER TABLE farm_identity ADD COLUMN output_root text;
            CREATE TABLE media_digests (
                path      text PRIMARY KEY,
                size      bigint NOT NULL,
                modified  bigint NOT NULL,
                inode     bigint NOT NULL,
                sha256    text NOT NULL
            );
            """
        ),
        (
            6,
            """
            -- Why the leading coordinator cannot write in its data folder (disk full), shown by
            -- `farm status` until a write succeeds again.
            ALTER TABLE farm_identity ADD COLUMN data_folder_problem text;
            """
        ),
        (
            7,
            """
            -- Pins are stamps now (size, mtime, ctime, inode), taken with one stat per asset;
            -- what is checked is each fixed block of media a render reads: the first render to
            -- read a block of a version records its digest, and every later one must match it.
            DROP TABLE media_digests;
            CREATE TABLE media_blocks (
                version  text NOT NULL,
                block    bigint NOT NULL,
                sha256   text NOT NULL,
                PRIMARY KEY (version, block)
            );
            """
        ),
        (
            8,
            """
            -- The queue in the order claims take it within a job (audio blocks first, video in
            -- frame order), so a claim reads the head of the queue, never sorts a job's chunks.
            CREATE INDEX chunks_queued ON chunks (job_id, (kind = 'audio') DESC, idx) WHERE state = 'queued';
            -- Running chunks by lease expiry, so the coordinator's check five times a second
            -- reads the expired ones, not every chunk of every job.
            CREATE INDEX chunks_leased ON chunks (lease_expires) WHERE state = 'running';
            -- Room on each page for a row's next version: progress updates in place (HOT).
            ALTER TABLE attempts SET (fillfactor = 80);
            -- Claims for many workers in one statement: the coordinator fills every free render
            -- slot of the farm with one round trip. Jobs by priority, then age; paused jobs wait;
            -- a draining worker gets nothing; a worker that failed `failures` chunks of a job gets
            -- none of it, and none of a chunk it failed or lost (its lease ran out: it went silent,
            -- or takes work and never does it) while another live worker has not. While no
            -- claimant has failed or lost a chunk of a job (nearly always), its chunks go to all of
            -- them in one set of statements; otherwise worker by worker, with the per-chunk rule.
            CREATE FUNCTION farm_claim(claimants text[], counts integer[], failures integer, lease double precision)
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
                                RETURNING s.position, c.worker_id, c.id, c.job_id, c.kind, c.idx, c.start_frame,
                                          c.end_frame, c.attempt),
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
                            claimed_index := claimed.idx; claimed_start := claimed.start_frame;
                            claimed_end := claimed.end_frame; claimed_attempt := claimed.attempt;
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
                                    RETURNING c.worker_id, c.id, c.job_id, c.kind, c.idx, c.start_frame, c.end_frame,
                                              c.attempt),
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
                                claimed_index := claimed.idx; claimed_start := claimed.start_frame;
                                claimed_end := claimed.end_frame; claimed_attempt := claimed.attempt;
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
        ),
        (9, tallies),
        (10, liveness),
        (11, retention),
        (12, tokens),
        (13, notify),
        (14, counters),
        (15, cache),
        (16, workCounters),
        (17, sessions),
        (18, units),
        (19, pools),
        (20, loudness),
        (21, trace),
    ]

    /// The newest schema version this build knows.
    public static var latest: Int { steps.last?.version ?? 0 }

    /// Applies every step the database has not seen, up to `target` (a test builds an older
    /// farm's database with it, to upgrade); returns the versions applied.
    @discardableResult
    public static func apply(on connection: PostgresConnection, upTo target: Int = latest) throws -> [Int] {
        try connection.transaction {
            // Any fixed key: it serialises concurrent migrators and is released at COMMIT.
            try connection.query("SELECT pg_advisory_xact_lock(4242001)")
            try connection.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                    + "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            let current = try connection.query(
                "SELECT coalesce(max(version), 0) AS version FROM schema_migrations")[0].decode("version", as: Int.self)
            if current > latest {
                throw PostgresError(
                    message:
                        "the database schema is version \(current), newer than this farm (\(latest)); upgrade the farm",
                    state: nil)
            }
            var applied: [Int] = []
            for step in steps where step.version > current && step.version <= target {
                try connection.run(script: step.sql)
                try connection.query("INSERT INTO schema_migrations (version) VALUES ($1)", [String(step.version)])
                applied.append(step.version)
            }
            return applied
        }
    }
}
