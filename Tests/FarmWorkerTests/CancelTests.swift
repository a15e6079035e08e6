import FarmCore
import FarmWire
import FarmWorker
import Testing

/// A cancel (the job stopped, or the attempt went stale) stops the attempt wherever it is, and
/// the worker says nothing more of it: no progress, piece, `done` or `failed`.
@Suite struct CancelTests {
    @Test func aCancelledRenderStopsAndNothingMoreIsSaidOfItsAttempt() throws {
        let farm = try AgentHarness()
        try farm.start()
        let assignment = AgentHarness.assignment(chunk: 1)
        try farm.receive(.assign(assignment))
        try farm.pass(.seconds(1))
        #expect(farm.sent.contains { $0.type == "progress" && $0.attempt == assignment.key })

        let mark = farm.sent.count
        try farm.receive(.cancel(Verdict(key: assignment.key, reason: "job stopped")))
        // The render notices its cancellation and stops; the loop then drops the attempt.
        try farm.finishRenders()
        #expect(farm.renderer.current.cancelled == [assignment.key])
        try farm.pass(.seconds(5))

        let after = farm.sent(after: mark)
        #expect(after.allSatisfy { $0.attempt == nil }, "\(after.map(\.type))")
        #expect(after.first?.heartbeat?.running == [])
        #expect(after.compactMap(\.heartbeat).allSatisfy { $0.running.isEmpty })
        #expect(farm.renderer.current.discarded == [assignment.key])
    }

    @Test func aCancelDuringTheUploadEndsItAndLaterAcknowledgementsAreIgnored() throws {
        let farm = try AgentHarness()
        try farm.start()
        let assignment = AgentHarness.assignment(chunk: 1)
        try farm.receive(.assign(assignment))
        try farm.finishRenders()
        #expect(farm.sent.last?.piece?.piece.offset == 0)

        let mark = farm.sent.count
        try farm.receive(.cancel(Verdict.stale(assignment.key)))
        try farm.receive(.pieceAck(UploadAck(key: assignment.key, received: 1_000)))
        // Longer than the patience after which an unanswered piece would go again.
        try farm.pass(.seconds(5))
        let after = farm.sent(after: mark)
        #expect(after.allSatisfy { $0.attempt == nil }, "\(after.map(\.type))")
        #expect(after.first?.heartbeat?.running == [])
        #expect(farm.renderer.current.discarded == [assignment.key])
    }

    @Test func aCancelledChunkThatWaitsForASlotNeverRenders() throws {
        let farm = try AgentHarness(slots: 1)
        try farm.start()
        let (rendering, waiting) = (AgentHarness.assignment(chunk: 1), AgentHarness.assignment(chunk: 2))
        try farm.receive(.assign(rendering))
        try farm.receive(.assign(waiting))
        try farm.receive(.cancel(Verdict(key: waiting.key, reason: "worker draining")))
        #expect(farm.sent.last?.heartbeat.map { $0.running == [rendering.key] && $0.waiting == [] } == true)

        // The slot frees with the first render's upload; nothing is left to take it.
        try farm.finishRenders()
        #expect(farm.renders.count == 0)
        try farm.pass(.seconds(2))
        #expect(farm.renderer.current.rendered == [rendering.key])
        #expect(!farm.sent.contains { $0.attempt == waiting.key })
    }

    @Test func aCancelForAnAttemptTheWorkerDoesNotHoldChangesNothing() throws {
        let farm = try AgentHarness()
        try farm.start()
        let assignment = AgentHarness.assignment(chunk: 1)
        try farm.receive(.assign(assignment))
        let mark = farm.sent.count
        try farm.receive(.cancel(Verdict(key: AttemptKey(chunk: 1, attempt: 2), reason: "stale")))
        #expect(farm.sent.count == mark)
        try farm.finishRenders()
        #expect(farm.sent.last?.piece?.piece.key == assignment.key)
    }
}
