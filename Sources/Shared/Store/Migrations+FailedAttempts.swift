extension Migrations {
    /// Step 22: every claim asks whether any of its claimants failed or lost a chunk of the job
    /// (`StoreFunction.claim`). Those attempts are few, so an index of them alone answers
    /// with a probe per claimant however many attempts the farm has made; the claim's text
    /// changed with it (one statement reads the claimants, draining ones included).
    static let failedAttempts = """
        CREATE INDEX attempts_failed ON attempts (worker_id) WHERE outcome IN ('failed', 'lost');
        """
}
