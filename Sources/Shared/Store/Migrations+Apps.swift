extension Migrations {
    /// Step 23: what apps driving the farm over HTTP keep in it. Templates (`POST
    /// /api/templates`), each a project with `fields` kept as its text; and the
    /// `Idempotency-Key` a job was submitted with, with a digest of what was asked, so that
    /// the same request sent again (a client that lost the answer) is answered with the same
    /// job and a different one under the same key is refused.
    static let apps = """
        CREATE TABLE templates (
            id           bigserial PRIMARY KEY,
            name         text NOT NULL,
            project_text text NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now()
        );
        ALTER TABLE jobs ADD COLUMN idempotency_key text;
        ALTER TABLE jobs ADD COLUMN idempotency_digest text;
        CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
        """
}
