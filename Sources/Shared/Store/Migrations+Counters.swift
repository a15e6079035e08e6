extension Migrations {
    /// Step 14: what `/metrics` counts that no table holds: lease expiries, failed attempts,
    /// uploaded bytes, audio samples, and the verify and join times as histograms. A row per
    /// counter (and per histogram bucket), added to where it happens: a scrape reads a few dozen
    /// rows, whatever the farm's history.
    static let counters = """
        CREATE TABLE farm_counters (
            name   text NOT NULL,
            -- A histogram bucket's upper bound; 'Infinity' for plain counters, sums and counts.
            le     double precision NOT NULL DEFAULT 'Infinity',
            value  double precision NOT NULL DEFAULT 0,
            PRIMARY KEY (name, le)
        );
        """

    /// Step 16: frames rendered and chunks reused become counters, added to where the work is
    /// accepted or taken from the cache (frames of reused chunks had counted as rendered); they
    /// start from what the farm did before (a chunk rendered twice before it counts once).
    package static let workCounters = """
        INSERT INTO farm_counters (name, value)
        SELECT 'farm_frames_rendered_total', coalesce(sum(c.end_frame - c.start_frame), 0)
        FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
        WHERE c.kind = 'video' AND c.state = 'done' AND a.outcome = 'done'
        UNION ALL
        SELECT 'farm_chunks_reused_total', count(*) FROM attempts WHERE outcome = 'reused';
        """
}
