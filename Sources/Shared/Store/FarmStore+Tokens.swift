import FarmCore
import Foundation

/// What a bearer token of the HTTP API may do. Each role can do what the ones before it can.
public enum TokenRole: String, Sendable, Codable, CaseIterable, Comparable {
    /// Read jobs, chunks, attempts and workers.
    case read
    /// And submit jobs (an editing app).
    case submit
    /// And control them: cancel, pause, resume, priority, retry, drain, prune.
    case operate

    public static func < (a: TokenRole, b: TokenRole) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One token as `farm tokens list` shows it (never the token itself).
public struct TokenRecord: Sendable, Codable, Equatable {
    public var name: String
    public var role: TokenRole
    public var createdAt: String
    public var lastUsedAt: String?
}

extension FarmStore {
    /// Stores a token by the hex SHA-256 of its text; a name already taken is refused.
    public func createToken(name: String, role: TokenRole, digest: String) throws {
        let taken = try connection.query(
            """
            INSERT INTO api_tokens (name, role, digest) VALUES ($1, $2, $3)
            ON CONFLICT (name) DO NOTHING RETURNING name
            """, [name, role.rawValue, digest])
        guard !taken.isEmpty else {
            throw FarmControlError.conflict("a token named \(name) exists; revoke it first or pick another name")
        }
    }

    public func tokens() throws -> [TokenRecord] {
        try connection.query(
            """
            SELECT name, role, extract(epoch FROM created_at) AS created, extract(epoch FROM last_used_at) AS used
            FROM api_tokens ORDER BY name
            """
        ).map { row in
            TokenRecord(
                name: try row.decode("name"), role: try row.decode("role"),
                createdAt: Self.timestamp(try row.decode("created", as: Double.self)) ?? "",
                lastUsedAt: Self.timestamp(try row.decode("used")))
        }
    }

    /// Removes a token; false when there was none of that name.
    public func revokeToken(name: String) throws -> Bool {
        try !connection.query("DELETE FROM api_tokens WHERE name = $1 RETURNING name", [name]).isEmpty
    }

    /// The role of the token whose SHA-256 is `digest`, nil for none; notes its use.
    public func tokenRole(digest: String) throws -> TokenRole? {
        try connection.query(
            "UPDATE api_tokens SET last_used_at = now() WHERE digest = $1 RETURNING role", [digest]
        ).first?.decode("role")
    }
}
