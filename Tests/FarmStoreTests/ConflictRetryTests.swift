import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// Two transactions that lock the same rows in opposite orders deadlock; the server rolls one
/// back (40P01). That one runs again and both commit, as an operator's `retry` over HTTP and the
/// coordinator's claim did when they met on a job row and a chunk row.
@Suite struct ConflictRetryTests {
    @Test func aDeadlockVictimRunsAgainAndBothCommit() throws {
        try withTemporaryDirectory { dir in
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            try server.start()
            defer { server.stop() }
            let setup = try PostgresConnection(url: server.connectionString)
            try setup.query("CREATE TABLE pair (id integer PRIMARY KEY, touched_by text[] NOT NULL DEFAULT '{}')")
            try setup.query("INSERT INTO pair (id) VALUES (1), (2)")

            let holdsFirst = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
            let runs = Counter()
            let errors = Errors()
            let group = DispatchGroup()
            for (side, order) in [(0, [1, 2]), (1, [2, 1])] {
                let connection = try PostgresConnection(url: server.connectionString)
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var firstRun = true
                    do {
                        try connection.transaction {
                            runs.add()
                            try Self.touch(order[0], by: side, on: connection)
                            if firstRun {
                                // Each side holds its first row before either asks for its second.
                                firstRun = false
                                holdsFirst[side].signal()
                                _ = holdsFirst[1 - side].wait(timeout: .now() + 10)
                            }
                            try Self.touch(order[1], by: side, on: connection)
                        }
                    } catch {
                        errors.add("\(error)")
                    }
                }
            }
            #expect(group.wait(timeout: .now() + 30) == .success)
            #expect(errors.all.isEmpty, "\(errors.all)")
            // Two first runs and the victim's second.
            #expect(runs.value == 3)
            let rows = try setup.query("SELECT id, array_length(touched_by, 1) AS touches FROM pair ORDER BY id")
            #expect(try rows.map { try $0.decode("touches", as: Int.self) } == [2, 2])
        }
    }

    private static func touch(_ row: Int, by side: Int, on connection: PostgresConnection) throws {
        try connection.query(
            "UPDATE pair SET touched_by = array_append(touched_by, $2::text) WHERE id = $1",
            [String(row), String(side)])
    }
}

/// A count several threads add to.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// What several threads failed with.
private final class Errors: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}
