extension Migrations {
    /// Step 13: a URL told once when its job ends (`farm submit --notify`, the API's `notify`),
    /// and the farm's secret that signs what is sent. The secret is made here, from
    /// PostgreSQL's strong random source (gen_random_uuid), so every coordinator signs alike.
    static let notify = """
        ALTER TABLE jobs ADD COLUMN notify_url text;
        ALTER TABLE jobs ADD COLUMN notify_attempts integer NOT NULL DEFAULT 0;
        ALTER TABLE jobs ADD COLUMN notify_next_at timestamptz;
        ALTER TABLE jobs ADD COLUMN notified_at timestamptz;
        -- The last failed delivery's reason; with notify_next_at NULL, the farm gave up.
        ALTER TABLE jobs ADD COLUMN notify_error text;
        -- Only ended jobs still to tell are ever looked at.
        CREATE INDEX jobs_to_notify ON jobs (notify_next_at)
            WHERE notify_url IS NOT NULL AND notified_at IS NULL AND notify_next_at IS NOT NULL;
        CREATE TABLE farm_secrets (
            name   text PRIMARY KEY,
            value  text NOT NULL
        );
        INSERT INTO farm_secrets VALUES
            ('notify', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
        """
}
