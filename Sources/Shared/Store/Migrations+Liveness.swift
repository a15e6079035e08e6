extension Migrations {
    /// Step 10: when the leading coordinator was last seen, and whether it stopped. Without
    /// it, a job submitted to a farm whose coordinator is down shows "queued" for ever, and the
    /// workers it marked lost on its way out look lost.
    static let liveness = """
        ALTER TABLE farm_identity ADD COLUMN coordinator_seen_at timestamptz;
        ALTER TABLE farm_identity ADD COLUMN coordinator_running boolean NOT NULL DEFAULT false;
        """
}
