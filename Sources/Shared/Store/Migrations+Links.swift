extension Migrations {
    /// Step 25: a secret of its own for signed links to outputs (`POST
    /// /api/jobs/{id}/output/link`). The notify secret is handed to every webhook receiver, so
    /// it cannot also be what lets a link open an output.
    static let links = """
        INSERT INTO farm_secrets VALUES
            ('links', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
        """
}
