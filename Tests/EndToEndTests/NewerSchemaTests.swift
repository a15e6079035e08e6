import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// A database that a newer farm has migrated: an older `farm` refuses it, naming both schema
/// versions, and writes nothing to it. One an older farm left: commands refuse it, a
/// coordinator migrates it.
@Suite struct NewerSchemaTests {
    @Test func anOlderCLIAndCoordinatorRefuseANewerSchemaNamingBothAndChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let database = try TestDatabase.create()
            _ = try FarmStore(url: database)
            let connection = try PostgresConnection(url: database)
            let newer = Migrations.latest + 1
            try connection.query("INSERT INTO schema_migrations (version) VALUES ($1)", [String(newer)])
            let before = try Self.snapshot(connection)

            let status = try runFarm(["status", "--database", database])
            #expect(status.status == 1, "\(status.stderr)")
            let message = "the database schema is version \(newer), newer than this farm (\(Migrations.latest))"
            #expect(status.stderr.contains(message), "\(status.stderr)")

            let serve = try runFarm([
                "serve", "--database", database, "--data", dir.appendingPathComponent("data").path,
                "--bind", "tcp://127.0.0.1:\(Int.random(in: 20_000...32_000))",
            ])
            #expect(serve.status != 0, "\(serve.stderr)")
            #expect(serve.stderr.contains(message), "\(serve.stderr)")

            #expect(try Self.snapshot(connection) == before)
        }
    }

    /// A command beside a coordinator never migrates: an older schema is refused by name and
    /// left as it was (an older coordinator may still run on it), until a coordinator of this
    /// farm brings it up to date; then the same command reads it.
    @Test func aCommandRefusesAnOlderSchemaAndOnlyACoordinatorMigratesIt() throws {
        let database = try TestDatabase.create()
        let connection = try PostgresConnection(url: database)
        let older = Migrations.latest - 1
        try Migrations.apply(on: connection, upTo: older)
        let before = try Self.snapshot(connection)

        let status = try runFarm(["status", "--database", database])
        #expect(status.status == 1, "\(status.stderr)")
        #expect(
            status.stderr.contains(
                "the database schema is version \(older), older than this farm (\(Migrations.latest)); "
                    + "only a coordinator migrates it"), "\(status.stderr)")
        #expect(try Self.snapshot(connection) == before)

        _ = try FarmStore(url: database, role: .coordinator)
        let after = try runFarm(["status", "--database", database])
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// The schema's versions and every table's row count.
    private static func snapshot(_ connection: PostgresConnection) throws -> [String] {
        let versions = try connection.query("SELECT version FROM schema_migrations ORDER BY version")
            .map { String(try $0.decode("version", as: Int.self)) }
        let tables = try connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).map { try $0.decode("tablename", as: String.self) }
        let counts = try tables.map { table in
            "\(table) \(try connection.query("SELECT count(*) AS n FROM \(table)")[0].decode("n", as: Int64.self))"
        }
        return versions + counts
    }
}
