import FarmStore
import Foundation
import TestSupport
import Testing

/// A connection that comes back after a database restart listens where it listened before:
/// `farm watch` keeps hearing the farm's notices without asking again.
@Suite struct ReconnectTests {
    @Test func aReconnectedConnectionListensAgain() throws {
        try withTemporaryDirectory { dir in
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            try server.start()
            defer { server.stop() }
            let listener = try PostgresConnection(url: server.connectionString)
            try listener.listen("farm")
            try server.restart()
            #expect(throws: PostgresError.self) { try listener.query("SELECT 1") }
            try listener.reconnect()
            let sender = try PostgresConnection(url: server.connectionString)
            try sender.query("NOTIFY farm, 'after the restart'")
            #expect(try listener.notifications(timeout: 5) == ["after the restart"])
        }
    }
}
