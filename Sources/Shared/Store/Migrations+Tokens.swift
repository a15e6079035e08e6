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
}
