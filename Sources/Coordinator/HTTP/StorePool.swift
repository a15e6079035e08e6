import FarmCore
import FarmStore

/// The HTTP API's database connections: at most `limit`, each on a thread of its own. A call
/// takes an idle connection, or opens one more while fewer than `limit` are open, and waits only
/// when all are busy; so a token check or a read never queues behind another call's work (a
/// submission's insert of 100,000 chunks) while the pool has room.
package final class StorePool: Sendable {
    private struct State {
        var idle: [StoreConnection] = []
        var opened = 0
        var waiting: [CheckedContinuation<StoreConnection, Never>] = []
    }

    private let database: String
    private let limit: Int
    private let state = Locked(State())

    /// Four: the API's calls are short, and every connection is one more backend for PostgreSQL.
    package init(database: String, limit: Int = 4) {
        precondition(limit > 0, "a pool needs at least one connection")
        self.database = database
        self.limit = limit
    }

    /// How many calls wait for a connection now.
    package var waitingCalls: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` on a connection of the pool and returns what it returns.
    package func run<T: Sendable>(_ body: @escaping @Sendable (FarmStore) throws -> T) async throws -> T {
        let connection = await borrow()
        // `run` returns only once `body` has finished on the connection's queue, even when this
        // task is cancelled: a connection goes back to the pool idle.
        defer { giveBack(connection) }
        return try await connection.run(body)
    }

    private func borrow() async -> StoreConnection {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> StoreConnection? in
                if let idle = state.idle.popLast() { return idle }
                guard state.opened < limit else {
                    state.waiting.append(continuation)
                    return nil
                }
                state.opened += 1
                return StoreConnection(database: database, number: state.opened)
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Hands the connection to the call that has waited longest, or keeps it idle.
    private func giveBack(_ connection: StoreConnection) {
        let next = state.withLock { state -> CheckedContinuation<StoreConnection, Never>? in
            guard !state.waiting.isEmpty else {
                state.idle.append(connection)
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume(returning: connection)
    }
}
