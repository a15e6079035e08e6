import FarmCoordinator
import FarmCore
import FarmStore
import FarmWire
import Foundation
import Logging
import TestSupport
import Testing

/// The coordinator's loop turned by hand: messages in through a scripted socket, its handling
/// and its ticks, against a real PostgreSQL (claims, fencing and leases are SQL). No process,
/// no port.
@Suite struct CoordinatorLoopTests {
    /// Workers as the loop sees them: frames queued to it, frames it sent.
    final class ScriptedWorkers: RouterSocket {
        var inbox: [[[UInt8]]] = []
        /// What the loop sent, decoded.
        let sent = SentMessages()
        var lastSender: String? { nil }

        func send(_ frames: [[UInt8]]) throws -> Bool {
            sent.send(try WireMessage(frames: Array(frames.dropFirst())), to: frames[0])
            return true
        }

        func receive(timeout: Double) throws -> [[UInt8]]? { inbox.isEmpty ? nil : inbox.removeFirst() }

        func deliver(_ message: WireMessage, from route: [UInt8]) { inbox.append([route] + message.encoded()) }
    }

    struct Loop {
        let server: CoordinatorServer
        let workers: ScriptedWorkers
        let store: FarmStore
        let job: Int64
        var lastTick = ContinuousClock.now

        /// Handles everything delivered, as one turn of the loop does.
        mutating func turn() throws { try server.serve(lastTick: &lastTick) }
    }

    static let w1 = Array("route-w1".utf8)
    static let w2 = Array("route-w2".utf8)

    static func info(_ id: String, slots: Int = 1) -> WorkerInfo {
        WorkerInfo(id: id, host: "host", cores: 2, slots: slots, version: FarmVersion.current)
    }

    /// A private PostgreSQL, a job of `chunks` video chunks and one audio block, and a
    /// coordinator leading it on scripted workers.
    static func withLoop(chunks: Int = 3, leaseSeconds: Double = 60, _ body: (inout Loop) throws -> Void) throws {
        try withJobInPrivateDatabase(chunks: chunks) { dir, database, store, job in
            var configuration = CoordinatorServer.Configuration(
                database: database, dataDirectory: dir.appendingPathComponent("data"))
            configuration.leaseSeconds = leaseSeconds
            let workers = ScriptedWorkers()
            let coordinator = try CoordinatorServer(
                configuration: configuration, logger: Logger(label: "test"), store: store, socket: workers,
                endpoint: "scripted", keyGate: nil)
            try coordinator.lead()
            var loop = Loop(server: coordinator, workers: workers, store: store, job: job)
            try body(&loop)
        }
    }

    @Test func aHelloIsWelcomedAndEveryFreeSlotGetsAChunk() throws {
        try Self.withLoop { loop in
            loop.workers.deliver(.hello(Self.info("w1", slots: 2)), from: Self.w1)
            try loop.turn()
            let assigned = loop.workers.sent.assignments(to: Self.w1)
            #expect(assigned.count == 2)
            #expect(Set(assigned).count == 2)
            #expect(assigned.allSatisfy { $0.attempt == 1 })
        }
    }

    @Test func aFailedAttemptIsFencedAndItsChunkGoesToTheNextClaim() throws {
        try Self.withLoop(chunks: 1) { loop in
            loop.workers.deliver(.hello(Self.info("w1")), from: Self.w1)
            try loop.turn()
            let first = try #require(loop.workers.sent.assignments(to: Self.w1).first)
            // Another worker cannot report on w1's attempt.
            loop.workers.deliver(.hello(Self.info("w2", slots: 0)), from: Self.w2)
            loop.workers.deliver(.failed(ChunkFailed(key: first, error: "not mine")), from: Self.w2)
            try loop.turn()
            #expect(try loop.store.current(first) != nil)

            loop.workers.deliver(.failed(ChunkFailed(key: first, error: "decoder gave up")), from: Self.w1)
            try loop.turn()
            #expect(try loop.store.current(first) == nil)
            let next = loop.workers.sent.assignments(to: Self.w1)
            #expect(next.count == 2)
            #expect(next[1].chunk != first.chunk || next[1].attempt == 2)
            // A late report of the failed attempt no longer counts.
            loop.workers.deliver(.failed(ChunkFailed(key: first, error: "again")), from: Self.w1)
            try loop.turn()
            #expect(try loop.store.current(next[1]) != nil)
        }
    }

    /// A loop slowed by a loaded machine ticks less often than five times a second; the farm is
    /// still told, by the clock, that its coordinator serves (a `farm render` under load once
    /// warned "no coordinator since …" about its own coordinator: the record was every 25th tick).
    @Test func aSlowLoopStillRecordsThatItServes() throws {
        try Self.withLoop { loop in
            try loop.server.tick()
            // Six ticks over more than five seconds: a loop a fifth as fast as it means to be.
            try loop.store.connection.query(
                "UPDATE farm_identity SET coordinator_seen_at = now() - interval '14 seconds'")
            for _ in 0..<6 {
                Thread.sleep(forTimeInterval: 0.9)
                try loop.server.tick()
            }
            let seen = try #require(try loop.store.coordinatorLiveness().lastSeen)
            let now = Date().timeIntervalSince1970
            #expect(now - seen < 6, "recorded \(now - seen) s ago")
            #expect(try loop.store.coordinatorLiveness().isServing)
        }
    }

    @Test func aCancelledJobsAttemptsAreCancelledAtTheNextTick() throws {
        try Self.withLoop { loop in
            loop.workers.deliver(.hello(Self.info("w1", slots: 2)), from: Self.w1)
            try loop.turn()
            let held = loop.workers.sent.assignments(to: Self.w1)
            _ = try loop.store.cancel(job: loop.job)
            try loop.server.tick()
            #expect(Set(loop.workers.sent.cancels(to: Self.w1)) == Set(held))
            #expect(try held.allSatisfy { try loop.store.current($0) == nil })
        }
    }

    @Test func aSilentWorkersLeaseRunsOutAndItsChunkIsClaimedAgain() throws {
        try Self.withLoop(chunks: 1, leaseSeconds: 0.2) { loop in
            loop.workers.deliver(.hello(Self.info("w1")), from: Self.w1)
            try loop.turn()
            let first = try #require(loop.workers.sent.assignments(to: Self.w1).first)
            // The lease is kept by heartbeats, and w1 sends none.
            Thread.sleep(forTimeInterval: 0.3)
            try loop.server.tick()
            #expect(try loop.store.current(first) == nil)
            // w1, silent longer than a lease, is dropped with it; the chunk waits in the queue
            // for the next worker, as its next attempt.
            #expect(loop.workers.sent.assignments(to: Self.w1) == [first])
            loop.workers.deliver(.hello(Self.info("w2", slots: 2)), from: Self.w2)
            try loop.turn()
            let taken = loop.workers.sent.assignments(to: Self.w2)
            #expect(taken.contains { $0.chunk == first.chunk && $0.attempt == first.attempt + 1 })
            #expect(try loop.store.job(loop.job)?.state != .failed)
        }
    }

    @Test func framesThatAreNotAMessageAreDroppedAndTheLoopGoesOn() throws {
        try Self.withLoop { loop in
            loop.workers.inbox.append([Self.w1, Array("no-such-message".utf8), Array("{".utf8)])
            loop.workers.inbox.append([Self.w1])
            loop.workers.deliver(.hello(Self.info("w1")), from: Self.w1)
            try loop.turn()
            #expect(loop.workers.sent.assignments(to: Self.w1).count == 1)
        }
    }
}
