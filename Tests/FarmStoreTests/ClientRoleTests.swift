import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// A client's store (`FarmStore.Role.client`) never migrates a farm's schema: a database with no
/// farm yet is made whole, as a coordinator would make it; an older one is refused and left at
/// its version.
@Suite struct ClientRoleTests {
    @Test func aClientMakesAnEmptyDatabaseWhole() throws {
        let database = try TestDatabase.create()
        let connection = try PostgresConnection(url: database)
        #expect(try Migrations.version(on: connection) == 0)
        let store = try FarmStore(url: database, role: .client)
        #expect(try store.jobStatuses(limit: 1).isEmpty)
        #expect(try Migrations.version(on: connection) == Migrations.latest)
    }

    @Test func aClientRefusesAnOlderSchemaAndLeavesIt() throws {
        let database = try TestDatabase.create()
        let connection = try PostgresConnection(url: database)
        try Migrations.apply(on: connection, upTo: Migrations.latest - 1)
        #expect {
            try FarmStore(url: database, role: .client)
        } throws: { error in
            "\(error)".contains(
                "version \(Migrations.latest - 1), older than this farm (\(Migrations.latest)); "
                    + "only a coordinator migrates it")
        }
        #expect(try Migrations.version(on: connection) == Migrations.latest - 1)
        _ = try FarmStore(url: database, role: .coordinator)
        #expect(try Migrations.version(on: connection) == Migrations.latest)
    }
}
