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
}
