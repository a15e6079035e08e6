extension Migrations {
    /// Step 28: the segment cache by GOP (`ChunkGrains`). A video chunk of more than one GOP
    /// records its GOPs' keys and where each ends; once the chunk is cached, each GOP is an entry
    /// of its own that names the segment holding it (`within`) and its frames there. Such an
    /// entry costs no bytes and goes with the segment it names.
    static let grains = """
        ALTER TABLE chunks ADD COLUMN grain_keys text[], ADD COLUMN grain_ends bigint[];
        ALTER TABLE segment_cache
            ADD COLUMN within text REFERENCES segment_cache (key) ON DELETE CASCADE,
            ADD COLUMN first_frame bigint,
            ADD COLUMN frames bigint;
        CREATE INDEX segment_cache_within ON segment_cache (within) WHERE within IS NOT NULL;
        """
}
