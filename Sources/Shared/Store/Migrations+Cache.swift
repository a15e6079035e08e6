extension Migrations {
    /// Step 15: the segment cache. Each chunk carries its key (`ChunkKeys`); an accepted
    /// segment is kept under its key in the coordinator's data folder (`DATA/cache`) and listed
    /// here, so that a later job's chunk with that key is done at submission (an attempt
    /// `reused` by the worker `cache`) and never sent to a worker.
    static let cache = """
        ALTER TABLE chunks ADD COLUMN content_key text;
        ALTER TABLE jobs ADD COLUMN use_cache boolean NOT NULL DEFAULT true;
        ALTER TABLE attempts DROP CONSTRAINT attempts_outcome_check;
        ALTER TABLE attempts ADD CONSTRAINT attempts_outcome_check
            CHECK (outcome IN ('running', 'done', 'failed', 'lost', 'cancelled', 'reused'));
        CREATE TABLE segment_cache (
            key           text PRIMARY KEY,
            -- The data folder that holds the file (`SegmentCache.identity`).
            folder        text NOT NULL,
            kind          text NOT NULL CHECK (kind IN ('video', 'audio')),
            bytes         bigint NOT NULL,
            sha256        text NOT NULL,
            stored_at     timestamptz NOT NULL DEFAULT now(),
            last_used_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX segment_cache_by_use ON segment_cache (last_used_at);
        -- Requests to the coordinator that owns the data folder (`farm prune --cache`).
        CREATE TABLE farm_flags (
            name  text PRIMARY KEY,
            at    timestamptz NOT NULL DEFAULT now()
        );
        """
}
