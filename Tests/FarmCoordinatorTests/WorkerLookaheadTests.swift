import FarmCore
import FarmStore
import FarmWire
import Logging
import Testing

@testable import FarmCoordinator

/// A worker never idles while a task it may take is queued: it holds one task beyond its
/// slots, so the next render starts when the last one ends, not a claim's round trip later;
/// and at a job's end a task one worker holds unstarted goes to a worker that has nothing.
@Suite struct WorkerLookaheadTests {
    static func worker(_ id: String, slots: Int = 1) -> WorkerInfo {
        WorkerInfo(id: id, host: "host", cores: 2, slots: slots, version: FarmVersion.current)
    }

    @Test func aWorkerHoldsItsNextTaskBeforeItsRenderEnds() throws {
        let (table, sent, sessions) = WorkerSessionsTests.farm(chunks: 10)
        let route = WorkerSessionsTests.route("w1")
        try sessions.hello(Self.worker("w1"), from: route)
        try sessions.assignIfPending()
        // One slot: one task renders, one waits.
        let held = sent.assignments(to: route)
        #expect(held.count == 2)
        // Every render's end finds the next task already on the worker, and the claim that
        // follows the upload's first piece puts another behind it.
        for step in 0..<8 {
            let rendering = sent.assignments(to: route)[step]
            #expect(sessions.uploading(rendering))
            try sessions.assignIfPending()
            sessions.release(rendering)
            let now = sent.assignments(to: route)
            #expect(now.count == step + 3, "a task waiting behind each render")
            #expect(sessions.holds(now[step + 1], route: route), "the next render needs no claim")
        }
        #expect(table.queue.isEmpty)
        #expect(sent.cancels(to: route).isEmpty)
    }

    @Test func anIdleWorkerTakesATaskAnotherHoldsUnstarted() throws {
        let (table, sent, sessions) = WorkerSessionsTests.farm(chunks: 4)
        let (r1, r2) = (WorkerSessionsTests.route("w1"), WorkerSessionsTests.route("w2"))
        try sessions.hello(Self.worker("w1"), from: r1)
        try sessions.assignIfPending()
        try sessions.hello(Self.worker("w2"), from: r2)
        try sessions.assignIfPending()
        // w1 holds chunks 1 and 2, w2 chunks 3 and 4; the queue is empty.
        #expect(sent.assignments(to: r1) == [1, 2].map { AttemptKey(chunk: $0, attempt: 1) })
        #expect(sent.assignments(to: r2) == [3, 4].map { AttemptKey(chunk: $0, attempt: 1) })
        #expect(table.queue.isEmpty)
        // w2 finishes both while w1 still renders chunk 1: chunk 2, which w1 has not started,
        // goes to w2.
        for key in sent.assignments(to: r2) {
            #expect(sessions.uploading(key))
            sessions.release(key)
        }
        try sessions.assignChunks()
        let waiting = AttemptKey(chunk: 2, attempt: 1)
        #expect(table.givenBack == [waiting])
        #expect(sent.cancels(to: r1) == [waiting])
        #expect(sent.assignments(to: r2).last?.chunk == 2)
        #expect(!sessions.holds(waiting, route: r1))
        // w1 rendering chunk 1 is left alone, and a chunk is taken back only once.
        #expect(sessions.holds(AttemptKey(chunk: 1, attempt: 1), route: r1))
        try sessions.assignChunks()
        #expect(table.givenBack.count == 1)
    }

    @Test func aBusyWorkerTakesNothingBack() throws {
        let (table, sent, sessions) = WorkerSessionsTests.farm(chunks: 3)
        let (r1, r2) = (WorkerSessionsTests.route("w1"), WorkerSessionsTests.route("w2"))
        try sessions.hello(Self.worker("w1"), from: r1)
        try sessions.hello(Self.worker("w2"), from: r2)
        try sessions.assignIfPending()
        // w1 holds two, w2 one and renders it: w2 has a free place but is not idle.
        #expect(sent.assignments(to: r1).count == 2 && sent.assignments(to: r2).count == 1)
        try sessions.assignChunks()
        #expect(table.givenBack.isEmpty && sent.cancels(to: r1).isEmpty)
    }
}
