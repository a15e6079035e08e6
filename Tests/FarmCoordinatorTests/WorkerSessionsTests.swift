import FarmCoordinator
import FarmCore
import FarmStore
import FarmWire
import Foundation
import Logging
import Testing

/// The dispatcher's rules without a socket or a database: every free slot filled by one claim,
/// slots freed by uploads refilled, stale and draining work taken back.
@Suite struct WorkerSessionsTests {
    static func worker(_ id: String, slots: Int) -> WorkerInfo {
        WorkerInfo(id: id, host: "host", cores: 2, slots: slots, version: FarmVersion.current)
    }

    static func route(_ id: String) -> [UInt8] { Array("route-\(id)".utf8) }

    static func farm(chunks: Int, leaseSeconds: Double = 10) -> (QueueTable, SentMessages, WorkerSessions) {
        let table = QueueTable(chunks: chunks)
        let sent = SentMessages()
        let sessions = WorkerSessions(
            store: table, outbox: sent, logger: Logger(label: "test"), leaseSeconds: leaseSeconds)
        return (table, sent, sessions)
    }

    @Test func oneClaimFillsTheFreeSlotsOfEveryWorkerThatJoined() throws {
        let (table, sent, sessions) = Self.farm(chunks: 100)
        for index in 0..<50 { try sessions.hello(Self.worker("w\(index)", slots: 2), from: Self.route("w\(index)")) }
        #expect(sessions.assignmentsPending)
        try sessions.assignIfPending()

        #expect(table.claims.count == 1)
        #expect(table.claims[0].count == 50)
        #expect(table.claims[0].allSatisfy { $0.count == 2 })
        for index in 0..<50 { #expect(sent.assignments(to: Self.route("w\(index)")).count == 2) }
        // Every slot is full: nothing is pending, and a tick's claim asks for no one.
        #expect(!sessions.assignmentsPending)
        try sessions.assignChunks()
        #expect(table.claims.last?.isEmpty == true)
    }

    /// A worker killed mid-chunk: its chunk's lease expires a little before the worker is
    /// marked lost, which frees its slot; the next chunk must not go to it (each crash then cost
    /// two leases), and does once it is heard again.
    @Test func aQuietWorkerWhoseLeaseExpiredIsGivenNothingUntilItIsHeard() throws {
        let (table, sent, sessions) = Self.farm(chunks: 10, leaseSeconds: 2)
        let route = Self.route("w1")
        try sessions.hello(Self.worker("w1", slots: 1), from: route)
        try sessions.assignIfPending()
        let first = try #require(sent.assignments(to: route).first)

        Thread.sleep(forTimeInterval: sessions.quietSeconds + 0.2)
        sessions.release(first)  // as the lease's expiry does
        #expect(sessions.assignmentsPending)
        try sessions.assignIfPending()
        #expect(sent.assignments(to: route) == [first], "a chunk went to a worker not heard for a lease's half")
        #expect(table.claims.last?.isEmpty == true)

        try sessions.heartbeat(
            Heartbeat(worker: Self.worker("w1", slots: 1), running: [], waiting: [], uploading: []), from: route)
        try sessions.assignChunks()
        #expect(sent.assignments(to: route).count == 2)
    }

    @Test func anUploadFreesItsSlotForTheNextChunkAndAReleaseForgetsTheAttempt() throws {
        let (table, sent, sessions) = Self.farm(chunks: 10)
        let route = Self.route("w1")
        try sessions.hello(Self.worker("w1", slots: 1), from: route)
        try sessions.assignIfPending()
        let first = try #require(sent.assignments(to: route).first)
        #expect(sessions.holds(first, route: route))
        #expect(!sessions.holds(first, route: Self.route("other")))

        #expect(sessions.uploading(first))
        #expect(!sessions.uploading(first))
        try sessions.assignIfPending()
        #expect(sent.assignments(to: route).count == 2)
        #expect(table.claims.count == 2)
        #expect(table.claims[1] == [ClaimRequest(worker: "w1", count: 1)])

        // The upload is accepted: the worker still renders its second chunk, so no new claim.
        sessions.release(first)
        #expect(!sessions.holds(first, route: route))
        #expect(!sessions.assignmentsPending)
    }

    @Test func aHeartbeatCancelsWhatTheWorkerNoLongerHoldsAndADrainTakesBackWaitingWork() throws {
        // Leases so short that every heartbeat reaches the database.
        let (table, sent, sessions) = Self.farm(chunks: 10, leaseSeconds: 0)
        let route = Self.route("w1")
        try sessions.hello(Self.worker("w1", slots: 2), from: route)
        try sessions.assignIfPending()
        let held = sent.assignments(to: route)
        #expect(held.count == 2)

        // It reports one of its own and one it never had.
        let foreign = AttemptKey(chunk: 77, attempt: 3)
        try sessions.heartbeat(
            Heartbeat(worker: Self.worker("w1", slots: 2), running: [held[0], foreign], waiting: [], uploading: []),
            from: route)
        // One it was not given is put to the database at once, and counts for nothing until then.
        #expect(sent.cancels(to: route) == [foreign])
        #expect(table.heartbeats.count == 1)
        #expect(!sessions.holds(foreign, route: route))

        table.draining.insert("w1")
        try sessions.heartbeat(
            Heartbeat(worker: Self.worker("w1", slots: 2), running: held, waiting: [held[1]], uploading: []),
            from: route)
        try sessions.recordReports()
        #expect(table.givenBack == [held[1]])
        #expect(sent.cancels(to: route) == [foreign, held[1]])
        #expect(sessions.holds(held[0], route: route))
        // A draining worker is asked for in no claim.
        try sessions.assignChunks()
        #expect(table.claims.last?.isEmpty == true)
    }

    @Test func anAttemptAWorkerWasNotGivenIsHeldOnlyOnceTheDatabaseSaysItIsItsOwn() throws {
        let (table, sent, sessions) = Self.farm(chunks: 10)
        let route = Self.route("w1")
        let info = Self.worker("w1", slots: 1)
        try sessions.hello(info, from: route)
        // What a restarted coordinator hears: a lease it did not give, which is w1's...
        let own = table.leaseUnseen(worker: "w1")
        // ...and one of w2's, which w1 names too.
        let theirs = table.leaseUnseen(worker: "w2")
        try sessions.heartbeat(
            Heartbeat(worker: info, running: [own, theirs], waiting: [], uploading: []), from: route)
        #expect(sessions.holds(own, route: route))
        #expect(!sessions.holds(theirs, route: route))
        #expect(sent.cancels(to: route) == [theirs])
        // Holding its one slot's worth, w1 is asked for in no claim.
        try sessions.assignChunks()
        #expect(table.claims.last?.isEmpty == true)
    }

    @Test func aWorkerOnANewRouteIsFoundByItAndTheOldRouteIsForgotten() throws {
        let (_, sent, sessions) = Self.farm(chunks: 10)
        try sessions.hello(Self.worker("w1", slots: 1), from: Self.route("old"))
        try sessions.assignIfPending()
        let held = try #require(sent.assignments(to: Self.route("old")).first)
        try sessions.heartbeat(
            Heartbeat(worker: Self.worker("w1", slots: 1), running: [held], waiting: [], uploading: []),
            from: Self.route("new"))
        #expect(sessions.worker(at: Self.route("new")) == "w1")
        #expect(sessions.worker(at: Self.route("old")) == nil)
        #expect(sessions.holds(held, route: Self.route("new")))
        #expect(sessions.name(of: Self.route("old")).hasPrefix("connection "))
    }

    @Test func aSteadyHeartbeatReachesTheDatabaseAFewTimesALeaseAndAChangeAtOnce() throws {
        let (table, sent, sessions) = Self.farm(chunks: 10)
        let route = Self.route("w1")
        let info = Self.worker("w1", slots: 1)
        try sessions.hello(info, from: route)
        try sessions.assignIfPending()
        let held = sent.assignments(to: route)
        let steady = Heartbeat(worker: info, running: held, waiting: [], uploading: [])

        // Holding what it was given, a second after its hello: nothing new for the database.
        try sessions.heartbeat(steady, from: route)
        try sessions.recordReports()
        #expect(table.heartbeats.isEmpty)
        // It went idle: recorded at the next tick.
        try sessions.heartbeat(Heartbeat(worker: info, running: [], waiting: [], uploading: []), from: route)
        try sessions.recordReports()
        #expect(table.heartbeats.map(\.worker.id) == ["w1"])
        // Its slots changed: recorded.
        var bigger = info
        bigger.slots = 2
        try sessions.heartbeat(Heartbeat(worker: bigger, running: [], waiting: [], uploading: []), from: route)
        try sessions.recordReports()
        #expect(table.heartbeats.count == 2)
        #expect(table.heartbeats.last?.worker.slots == 2)
    }

    @Test func aClaimWhoseAnswerWasLostIsSentWhenTheDatabaseIsBack() throws {
        let (table, sent, sessions) = Self.farm(chunks: 10)
        let route = Self.route("w1")
        try sessions.hello(Self.worker("w1", slots: 2), from: route)
        try sessions.assignIfPending()
        #expect(sent.assignments(to: route).count == 2)
        sessions.release(sent.assignments(to: route)[1])
        let lost = table.leaseUnseen(worker: "w1")

        try sessions.resendLostClaims()
        #expect(sent.assignments(to: route).last == lost)
        #expect(sessions.holds(lost, route: route))
        // Sent once: the next time finds it held.
        try sessions.resendLostClaims()
        #expect(sent.assignments(to: route).filter { $0 == lost }.count == 1)
    }

    /// A coordinator killed between committing a claim and sending it: the one that follows
    /// sends the claim when the worker first reports, instead of waiting out the lease; what
    /// the worker reports holding is not sent again.
    @Test func aClaimAKilledCoordinatorNeverSentGoesOutWhenTheWorkerIsBack() throws {
        let (table, sent, sessions) = Self.farm(chunks: 10)
        let route = Self.route("w1")
        let info = Self.worker("w1", slots: 2)
        let neverSent = table.leaseUnseen(worker: "w1")
        let rendering = table.leaseUnseen(worker: "w1")
        try sessions.heartbeat(Heartbeat(worker: info, running: [rendering], waiting: [], uploading: []), from: route)
        #expect(sent.assignments(to: route) == [neverSent])
        #expect(sessions.holds(neverSent, route: route))
        // Its next heartbeat, still without it (sent, not yet heard): nothing sent twice.
        try sessions.heartbeat(Heartbeat(worker: info, running: [rendering], waiting: [], uploading: []), from: route)
        #expect(sent.assignments(to: route) == [neverSent])
    }
}
