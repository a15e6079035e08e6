extension Migrations {
    /// Step 27, no table changes: `farm_claim` picks up to a count the planner sees. A farm
    /// older than this step refuses the database rather than putting back its own claim.
    static let claimLimit = """
        SELECT 1;
        """
}
