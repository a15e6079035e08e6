import FarmPostgres
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

    /// Every session, a reconnected one too, runs without PostgreSQL's JIT: its compile cost
    /// (40 ms for `farm status` on a job of 100,000 chunks) exceeded the statements' own.
    @Test func everySessionRunsWithoutJIT() throws {
        try withTemporaryDirectory { dir in
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            try server.start()
            defer { server.stop() }
            let connection = try PostgresConnection(url: server.connectionString)
            func setting(_ name: String) throws -> String {
                try connection.query("SELECT current_setting($1) AS value", [name])[0].decode("value")
            }
            #expect(try setting("jit") == "off")
            #expect(try setting("client_min_messages") == "warning")
            try server.restart()
            #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
            try connection.reconnect()
            #expect(try setting("jit") == "off")
        }
    }
}
