extension Migrations {
    /// Step 12: bearer tokens of the HTTP API. Only a token's SHA-256 is kept: the token itself
    /// is printed once, by `farm tokens create`.
    static let tokens = """
        CREATE TABLE api_tokens (
            name        text PRIMARY KEY,
            role        text NOT NULL CHECK (role IN ('read', 'submit', 'operate')),
            digest      text NOT NULL UNIQUE,
            created_at  timestamptz NOT NULL DEFAULT now(),
            last_used_at timestamptz
        );
        """

    /// Step 17: the dashboard's sessions. Logging in with a token opens one; the browser keeps
    /// only the session's id (its SHA-256 here), never the token. Logging out, its end, or
    /// revoking the token (the cascade) closes it.
    static let sessions = """
        CREATE TABLE dashboard_sessions (
            digest      text PRIMARY KEY,
            token_name  text NOT NULL REFERENCES api_tokens (name) ON DELETE CASCADE,
            created_at  timestamptz NOT NULL DEFAULT now(),
            expires_at  timestamptz NOT NULL
        );
        CREATE INDEX dashboard_sessions_by_end ON dashboard_sessions (expires_at);
        """
}
