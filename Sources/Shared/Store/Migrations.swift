import FarmPostgres

/// The farm's tables as numbered steps. Each runs once, in order, inside one transaction with
/// its row in `schema_migrations`; an advisory lock keeps two coordinators from racing.
/// Never edit a published step: add a new one. Functions and their triggers are not steps:
/// each has one live text (`StoreFunction`), put in place after the step it first needs and
/// again whenever the database's text differs from it. (Steps 8, 9, 13, 18, 19 and 20 once
/// created the claim, the tallies' trigger and the end-of-job trigger themselves.)
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
        (22, failedAttempts),
        (23, apps),
        (24, after),
        (25, links),
        (26, views),
        (27, claimLimit),
        (28, grains),
    ]

    /// The newest schema version this build knows.
    public static var latest: Int { steps.last?.version ?? 0 }

    /// The values a step draws at random for its database (the farm's identity, which keeps
    /// another database off a data folder; the webhooks' signing secret), drawn again by a
    /// private server copied from the migrated `ClusterTemplate`, which would otherwise share
    /// the template's with every copy. A step that stores a value drawn at random adds it here.
    static let drawnPerDatabase = """
        UPDATE farm_identity SET id = md5(random()::text || clock_timestamp()::text);
        UPDATE farm_secrets SET value = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')
            WHERE name IN ('notify', 'links');
        """

    /// The schema's version in the database: 0 where no farm was ever put in it.
    package static func version(on connection: PostgresConnection) throws -> Int {
        // Two statements: PostgreSQL resolves every table a statement names before running it,
        // so one that reads the table in a branch fails where the table is absent.
        let present = try connection.query(
            "SELECT to_regclass('schema_migrations') IS NOT NULL AS present")[0].decode("present", as: Bool.self)
        guard present else { return 0 }
        return try connection.query("SELECT coalesce(max(version), 0) AS version FROM schema_migrations")[0]
            .decode("version", as: Int.self)
    }

    /// A client's check (`FarmStore.Role.client`): the database holds exactly this farm's
    /// schema, or none yet (then it is made, as `apply` makes it). Changes nothing otherwise.
    public static func use(on connection: PostgresConnection) throws {
        let current = try version(on: connection)
        if current == 0 {
            try apply(on: connection)
        } else if current > latest {
            throw newer(current)
        } else if current < latest {
            throw PostgresError(
                message: "the database schema is version \(current), older than this farm (\(latest)); only a "
                    + "coordinator migrates it: start this farm's `farm serve` on it first",
                state: nil)
        }
    }

    private static func newer(_ current: Int) -> PostgresError {
        PostgresError(
            message: "the database schema is version \(current), newer than this farm (\(latest)); upgrade the farm",
            state: nil)
    }

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
            let current = try version(on: connection)
            if current > latest { throw newer(current) }
            var applied: [Int] = []
            for step in steps where step.version > current && step.version <= target {
                try connection.run(script: step.sql)
                // A function's triggers in place before a later step writes to its tables.
                if StoreFunction.all.contains(where: { $0.since == step.version }) {
                    try StoreFunction.install(upTo: step.version, on: connection)
                }
                try connection.query("INSERT INTO schema_migrations (version) VALUES ($1)", [String(step.version)])
                applied.append(step.version)
            }
            try StoreFunction.install(upTo: applied.last ?? current, on: connection)
            return applied
        }
    }
}
