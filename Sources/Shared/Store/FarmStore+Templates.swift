import FarmCore
import FarmPostgres
import Foundation

/// A project kept as a template (`POST /api/templates`): its text, with `fields`.
public struct TemplateRecord: Sendable {
    public var id: Int64
    public var name: String
    public var projectText: String
    public var createdAt: String
}

/// Templates kept for apps: made, listed newest first a page at a time, read and removed.
extension FarmStore {
    public func createTemplate(name: String, projectText: String) throws -> TemplateRecord {
        try Self.template(
            try connection.query(
                """
                INSERT INTO templates (name, project_text) VALUES ($1, $2)
                RETURNING id, name, project_text, extract(epoch FROM created_at) AS created
                """, [name, projectText])[0])
    }

    /// Newest first, at most `limit`, those older than the template `before` when given.
    public func templates(limit: Int, before: Int64? = nil) throws -> [TemplateRecord] {
        try connection.query(
            """
            SELECT id, name, project_text, extract(epoch FROM created_at) AS created FROM templates
            WHERE $1::bigint IS NULL OR id < $1::bigint ORDER BY id DESC LIMIT $2
            """, [before.map(String.init), String(limit)]
        ).map(Self.template)
    }

    public func template(_ id: Int64) throws -> TemplateRecord? {
        try connection.query(
            """
            SELECT id, name, project_text, extract(epoch FROM created_at) AS created FROM templates WHERE id = $1
            """, [String(id)]
        ).first.map(Self.template)
    }

    /// Whether there was one to remove. Jobs made from it keep their own merged project.
    public func deleteTemplate(_ id: Int64) throws -> Bool {
        try !connection.query("DELETE FROM templates WHERE id = $1 RETURNING id", [String(id)]).isEmpty
    }

    private static func template(_ row: PostgresRow) throws -> TemplateRecord {
        TemplateRecord(
            id: try row.decode("id"), name: try row.decode("name"), projectText: try row.decode("project_text"),
            createdAt: timestamp(try row.decode("created", as: Double.self)) ?? "")
    }
}
