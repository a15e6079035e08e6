import FarmCore
import FarmHTTP
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// The HTTP API's database connections (`StorePool`) against a real PostgreSQL: a call never
/// queues behind a busy connection while the pool has room, no more than its limit are opened,
/// and a connection the server drops is opened again.
///
/// A held call blocks its connection's own thread on a semaphore, never the test's: the test
/// awaits, so Swift's few cooperative threads stay free to carry the other calls.
@Suite(.timeLimit(.minutes(1))) struct StorePoolTests {
    /// This connection's server process: which connection of the pool served a call.
    static func backend(_ store: FarmStore) throws -> String {
        try String(store.connection.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int64.self))
    }

    @Test func aReadAnswersWhileAnotherCallHoldsAConnection() async throws {
        let pool = StorePool(database: try TestDatabase.create(), limit: 2)
        let (entered, inside) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        async let slow = pool.run { store in
            inside.yield()
            release.wait()
            order.withLock { $0.append("slow call") }
            return try Self.backend(store)
        }
        for await _ in entered { break }
        // With one connection for every call (the API before the pool) this waited for `release`.
        let read = try await pool.run { try $0.jobStatuses(limit: 5) }
        order.withLock { $0.append("read") }
        release.signal()
        _ = try await slow
        #expect(read.isEmpty)
        #expect(order.current == ["read", "slow call"])
    }

    @Test func aCallWaitsForAFreedConnectionOnceAllAreBusy() async throws {
        let pool = StorePool(database: try TestDatabase.create(), limit: 2)
        let (entered, inside) = AsyncStream<Void>.makeStream()
        let (releaseFirst, releaseSecond) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let order = Locked<[String]>([])
        let held = { @Sendable (release: DispatchSemaphore) in
            try await pool.run { store in
                inside.yield()
                release.wait()
                return try Self.backend(store)
            }
        }
        async let first = held(releaseFirst)
        async let second = held(releaseSecond)
        var iterator = entered.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        async let third = pool.run { store in
            order.withLock { $0.append("third call") }
            return try Self.backend(store)
        }
        while pool.waitingCalls == 0 { try await Task.sleep(for: .milliseconds(10)) }
        order.withLock { $0.append("first freed") }
        releaseFirst.signal()
        let (firstBackend, thirdBackend) = (try await first, try await third)
        #expect(thirdBackend == firstBackend, "it runs on the connection freed")
        releaseSecond.signal()
        let secondBackend = try await second
        #expect(secondBackend != firstBackend)
        #expect(order.current == ["first freed", "third call"])
    }

    @Test func aLostConnectionIsOpenedAgainByTheNextCall() async throws {
        let database = try TestDatabase.create()
        let pool = StorePool(database: database, limit: 1)
        let before = try await pool.run { try Self.backend($0) }
        try PostgresConnection(url: database).query("SELECT pg_terminate_backend($1)", [before])
        await #expect {
            try await pool.run { try Self.backend($0) }
        } throws: { error in
            (error as? PostgresError)?.isConnectionLost == true
        }
        let after = try await pool.run { try Self.backend($0) }
        #expect(after != before && !after.isEmpty)
    }
}
