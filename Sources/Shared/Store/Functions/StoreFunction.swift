import FarmPostgres

/// A function of the farm's schema (and the triggers that call it), defined in one file and
/// nowhere else. The migration steps are the tables' history; a function has one live text,
/// which `install(upTo:on:)` puts in the database whenever the database's differs, so reading
/// its file is reading what runs. A changed text comes with a new step, even an empty one, so
/// that an older farm refuses the database (its schema is newer) instead of putting its own
/// text back.
package struct StoreFunction {
    package let name: String
    /// The first schema step whose tables it reads: an older database does not get it.
    package let since: Int
    /// One `CREATE FUNCTION` statement, its body between `$$` quotes.
    package let definition: String
    /// `CREATE TRIGGER` statements that call it, by trigger name.
    package var triggers: [(name: String, sql: String)] = []

    /// Every function of the schema.
    package static let all = [claim, chunkTally, jobEnded]

    /// The text PostgreSQL keeps as the function's source (`pg_proc.prosrc`).
    package var body: String {
        let parts = definition.components(separatedBy: "$$")
        precondition(parts.count == 3, "\(name): one body between $$ quotes")
        return parts[1]
    }

    /// Makes each function of a step up to `version` match its file: one that is missing, has
    /// another text, has overloads or lacks one of its triggers is dropped with its triggers
    /// and created again, inside the caller's transaction. Costs one query when all match.
    package static func install(upTo version: Int, on connection: PostgresConnection) throws {
        let wanted = all.filter { $0.since <= version }
        guard !wanted.isEmpty else { return }
        let rows = try connection.query(
            """
            SELECT p.proname::text AS name, p.oid::regprocedure::text AS signature, p.prosrc AS body,
                   coalesce((SELECT string_agg(t.tgname::text, ',' ORDER BY t.tgname) FROM pg_trigger t
                             WHERE t.tgfoid = p.oid), '') AS triggers
            FROM pg_proc p
            WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY($1::text[])
            """, [PostgresArray.text(wanted.map(\.name))])
        var found: [String: [(signature: String, body: String, triggers: String)]] = [:]
        for row in rows {
            found[try row.decode("name"), default: []].append(
                (try row.decode("signature"), try row.decode("body"), try row.decode("triggers")))
        }
        for function in wanted {
            let present = found[function.name] ?? []
            let triggers = function.triggers.map(\.name).sorted().joined(separator: ",")
            if present.count == 1, present[0].body == function.body, present[0].triggers == triggers { continue }
            for old in present { try connection.query("DROP FUNCTION \(old.signature) CASCADE") }
            try connection.run(script: function.definition)
            for trigger in function.triggers { try connection.run(script: trigger.sql) }
        }
    }
}
