import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// Each SQL function has one live text (`StoreFunction`): whatever step a database was left
/// at, and whatever text of a function it holds, opening it with this farm leaves exactly the
/// files' functions and their triggers.
@Suite struct StoreFunctionTests {
    /// The database's functions as `install` reads them: name → (overloads, source, triggers).
    static func functions(_ connection: PostgresConnection) throws -> [String: (Int, String, String)] {
        var found: [String: (Int, String, String)] = [:]
        for row in try connection.query(
            """
            SELECT p.proname::text AS name, count(*) OVER (PARTITION BY p.proname) AS overloads, p.prosrc AS body,
                   coalesce((SELECT string_agg(t.tgname::text, ',' ORDER BY t.tgname) FROM pg_trigger t
                             WHERE t.tgfoid = p.oid), '') AS triggers
            FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
            """)
        {
            found[try row.decode("name")] = (
                Int(try row.decode("overloads", as: Int64.self)), try row.decode("body"), try row.decode("triggers")
            )
        }
        return found
    }

    static func expectMatchesTheFiles(_ connection: PostgresConnection, step: Int) throws {
        let found = try functions(connection)
        #expect(found.count == StoreFunction.all.count, "after step \(step): \(found.keys.sorted())")
        for function in StoreFunction.all {
            let live = try #require(found[function.name], "after step \(step): \(function.name) missing")
            #expect(live.0 == 1, "after step \(step): \(function.name) has \(live.0) definitions")
            #expect(live.1 == function.body, "after step \(step): \(function.name)'s text is not its file's")
            #expect(live.2 == function.triggers.map(\.name).sorted().joined(separator: ","), "after step \(step)")
        }
    }

    @Test func aNewDatabaseHoldsTheFilesFunctions() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.expectMatchesTheFiles(store.connection, step: Migrations.latest)
    }

    /// A database left at every published step, its functions replaced by a stale text of
    /// another signature and their triggers gone, is upgraded to the files' functions.
    @Test func anUpgradeFromEveryStepEndsWithTheFilesFunctions() throws {
        for step in 0..<Migrations.latest {
            let url = try TestDatabase.create()
            let old = try PostgresConnection(url: url)
            try Migrations.apply(on: old, upTo: step)
            for function in StoreFunction.all where function.since <= step {
                try old.query("DROP FUNCTION \(function.name) CASCADE")
                try old.query(
                    "CREATE FUNCTION \(function.name)(stale integer) RETURNS integer LANGUAGE sql AS $$SELECT 1$$")
            }
            let store = try FarmStore(url: url)
            try Self.expectMatchesTheFiles(store.connection, step: step)
        }
    }

    /// Opening a database whose functions already match costs no re-creation: a trigger's
    /// identity (its oid) is the same before and after.
    @Test func matchingFunctionsAreLeftAlone() throws {
        let url = try TestDatabase.create()
        let first = try FarmStore(url: url)
        let oids = "SELECT string_agg(oid::text, ',' ORDER BY oid) AS oids FROM pg_trigger WHERE NOT tgisinternal"
        let before: String = try first.connection.query(oids)[0].decode("oids")
        let second = try FarmStore(url: url)
        #expect(try second.connection.query(oids)[0].decode("oids") == before)
    }
}
