/// The dashboard's sessions (migration 17): what its cookie names in place of a token.
extension FarmStore {
    /// Opens a session, `session` its id's SHA-256, for the token whose SHA-256 is `token`,
    /// lasting `seconds`. Returns the token's role; nil (and no session) for an unknown token.
    /// Sessions that ended are removed on the way.
    public func openSession(token: String, session: String, seconds: Double) throws -> TokenRole? {
        try connection.query(
            """
            WITH ended AS (DELETE FROM dashboard_sessions WHERE expires_at < now()),
            used AS (UPDATE api_tokens SET last_used_at = now() WHERE digest = $1 RETURNING name, role),
            opened AS (
                INSERT INTO dashboard_sessions (digest, token_name, expires_at)
                SELECT $2, name, now() + make_interval(secs => $3::double precision) FROM used)
            SELECT role FROM used
            """, [token, session, String(seconds)]
        ).first?.decode("role")
    }

    /// The role of the session whose id's SHA-256 is `digest`: its token's, while the session
    /// lasts and the token is not revoked; nil otherwise. Notes the token's use.
    public func sessionRole(digest: String) throws -> TokenRole? {
        try connection.query(
            """
            UPDATE api_tokens t SET last_used_at = now() FROM dashboard_sessions s
            WHERE s.digest = $1 AND s.expires_at > now() AND t.name = s.token_name
            RETURNING t.role
            """, [digest]
        ).first?.decode("role")
    }

    /// Ends a session (logging out); nothing when there is none.
    public func closeSession(digest: String) throws {
        try connection.query("DELETE FROM dashboard_sessions WHERE digest = $1", [digest])
    }
}
