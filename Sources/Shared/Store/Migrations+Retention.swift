extension Migrations {
    /// Step 11: what a finished job's segments weigh in the coordinator's data folder, and
    /// their removal: asked for by `farm prune` (from any machine) or due under
    /// `farm serve --keep-segments`, done by the coordinator, which owns the folder.
    static let retention = """
        -- Bytes in DATA/jobs/N once the job ended, measured by the coordinator (NULL: not yet).
        ALTER TABLE jobs ADD COLUMN segment_bytes bigint;
        ALTER TABLE jobs ADD COLUMN prune_requested boolean NOT NULL DEFAULT false;
        ALTER TABLE jobs ADD COLUMN pruned_at timestamptz;
        """
}
