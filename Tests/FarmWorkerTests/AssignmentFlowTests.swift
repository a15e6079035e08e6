import Dispatch
import FarmCore
import FarmWire
import FarmWorker
import Foundation
import Testing

/// An assignment from its arrival to its verdict: rendered in a free slot, uploaded in pieces
/// each after the last was acknowledged, then `done` with the size and SHA-256 of what went.
@Suite struct AssignmentFlowTests {
    @Test func anAssignmentIsRenderedUploadedPieceByPieceAndReportedDone() throws {
        let farm = try AgentHarness()
        try farm.start()
        guard case .hello(let info) = try #require(farm.sent.first) else {
            Issue.record("the first message is not hello: \(farm.sent)")
            return
        }
        #expect(info.id == "w1" && info.slots == 1 && info.version == FarmVersion.current)
        #expect(farm.coordinator.endpoints == [AgentHarness.endpoint])

        let assignment = AgentHarness.assignment(chunk: 4)
        let key = assignment.key
        try farm.receive(.assign(assignment))
        #expect(farm.renders.count == 1)
        try farm.finishRenders()
        try farm.acknowledgeUpload(of: key, bytes: 2_500)

        let upload = farm.sent(after: 1)
        #expect(upload.map(\.type) == ["piece", "piece", "piece", "done"])
        let pieces = upload.compactMap(\.piece)
        #expect(pieces.map(\.piece) == [0, 1_000, 2_000].map { UploadPiece(key: key, offset: $0, total: 2_500) })
        let content = StandInRenderer.content(of: key, count: 2_500)
        #expect(pieces.flatMap(\.bytes) == content)
        let hasher = SHA256()
        hasher.update(content)
        let done = ChunkDone(
            key: key, bytes: 2_500, sha256: hasher.finish(), made: .frames(30, fps: 25),
            mediaBlocks: [StandInRenderer.block(of: key)], thumbnail: StandInRenderer.thumbnail)
        guard case .done(var sent) = upload.last else {
            Issue.record("no done message")
            return
        }
        // The attempt's log travels with its result: the worker's own lines about it.
        #expect(
            sent.log.map(Self.texts) == [
                "info assigned (frames 120..<150) to w1 on \(WorkerAgent.hostName), farm 0.5.0 (kind not reported)",
                "info rendering",
                "info rendered: 30 frames at 25.0 fps; read 0 blocks (0 bytes) of pinned media for 0 bytes demuxed, "
                    + "0 seeks; uploading",
            ])
        sent.log = []
        // Its spans on the worker travel with it too (`farm trace`).
        let phases = try #require(sent.phases)
        #expect(phases.queued >= 0 && phases.rendering >= 0 && phases.uploading >= 0)
        sent.phases = nil
        #expect(sent == done)

        // Accepted: the attempt is forgotten, its scratch discarded, and the farm told at once.
        let before = farm.sent.count
        try farm.receive(.accepted(Verdict(key: key, reason: "verified")))
        #expect(farm.renderer.current.discarded == [key])
        let told = farm.sent(after: before)
        #expect(told.count == 1)
        #expect(told.first?.heartbeat.map { $0.running.isEmpty && $0.uploading == [] } == true)
    }

    @Test func heartbeatsSayWhatRendersWhatWaitsAndWhatUploadsAndWaitingWorkGoesInChunkOrder() throws {
        let farm = try AgentHarness(slots: 1)
        try farm.start()
        let (rendering, later, sooner) = (
            AgentHarness.assignment(chunk: 5), AgentHarness.assignment(chunk: 3), AgentHarness.assignment(chunk: 2)
        )
        for assignment in [rendering, later, sooner] { try farm.receive(.assign(assignment)) }
        #expect(farm.renders.count == 1)
        var mark = farm.sent.count
        try farm.pass(.seconds(1.5))
        let first = try #require(farm.sent(after: mark).compactMap(\.heartbeat).last)
        #expect(Set(first.running) == [rendering.key, later.key, sooner.key])
        #expect(Set(first.waiting ?? []) == [later.key, sooner.key])
        #expect(first.uploading == [])
        #expect(farm.sent(after: mark).filter { $0.type == "progress" }.allSatisfy { $0.attempt == rendering.key })

        // Its render over, chunk 5 uploads and frees the slot: the lowest chunk waiting takes it.
        try farm.finishRenders()
        #expect(farm.renders.count == 1)
        mark = farm.sent.count
        try farm.pass(.seconds(1.5))
        let second = try #require(farm.sent(after: mark).compactMap(\.heartbeat).last)
        #expect(Set(second.running) == [rendering.key, later.key, sooner.key])
        #expect(second.waiting == [later.key])
        #expect(second.uploading == [rendering.key])
        let progress = farm.sent(after: mark).filter { $0.type == "progress" }
        #expect(!progress.isEmpty && progress.allSatisfy { $0.attempt == sooner.key })
        farm.renders.runAll()
        #expect(farm.renderer.current.rendered == [rendering.key, sooner.key])
    }

    @Test func progressCarriesTheFramesTheRenderHasDone() throws {
        let farm = try AgentHarness()
        try farm.start()
        let assignment = AgentHarness.assignment(chunk: 1)
        // This render runs on a thread of its own and stops after 12 of its 30 frames until told.
        let pause = farm.renderer.pause(after: 12)
        try farm.receive(.assign(assignment))
        farm.renders.runAllOnThreads()
        #expect(pause.reached.wait(timeout: .now() + 60) == .success)
        let mark = farm.sent.count
        try farm.pass(.seconds(1))
        let progress = farm.sent(after: mark).filter { $0.type == "progress" }
        #expect(!progress.isEmpty)
        for case .progress(let report) in progress {
            #expect(report.key == assignment.key && report.frames == 12 && report.fps > 0)
        }
        pause.resume.signal()
        #expect(pause.finished.wait(timeout: .now() + 60) == .success)
    }

    @Test func aFailedRenderIsReportedOnceAndAChangedMediaFailureIsFatal() throws {
        let farm = try AgentHarness(slots: 2)
        try farm.start()
        let (plain, changed) = (AgentHarness.assignment(chunk: 1), AgentHarness.assignment(chunk: 2))
        struct DecoderBroke: Error, Sendable, CustomStringConvertible {
            var description: String { "decoding clip.mov failed" }
        }
        let mediaChanged = MediaChangedError(asset: "clip", path: "/media/clip.mov")
        farm.renderer.fail(plain.key, with: DecoderBroke())
        farm.renderer.fail(changed.key, with: mediaChanged)
        try farm.receive(.assign(plain))
        try farm.receive(.assign(changed))
        try farm.finishRenders()
        try farm.pass(.seconds(5))

        let reports = farm.sent.filter { $0.attempt != nil && $0.type != "progress" }
        let failures = reports.compactMap { message -> ChunkFailed? in
            guard case .failed(let failed) = message else { return nil }
            return failed
        }
        // Each failure carries its attempt's log, ending with the error.
        #expect(failures.allSatisfy { $0.log.map(Self.texts)?.last == "error failed: \($0.error)" })
        #expect(
            Set(failures.map { ChunkFailed(key: $0.key, error: $0.error, fatal: $0.fatal == true) }) == [
                ChunkFailed(key: plain.key, error: "decoding clip.mov failed", fatal: false),
                ChunkFailed(key: changed.key, error: mediaChanged.description, fatal: true),
            ])
        #expect(reports.count == 2)
        #expect(Set(farm.renderer.current.discarded) == [plain.key, changed.key])
        #expect(farm.sent.compactMap(\.heartbeat).last?.running == [])
    }

    @Test func anAssignmentAlreadyHeldIsNotRenderedTwice() throws {
        let farm = try AgentHarness(slots: 2)
        try farm.start()
        let assignment = AgentHarness.assignment(chunk: 1)
        // The coordinator sends a claim again when its first answer may have been lost.
        try farm.receive(.assign(assignment))
        try farm.receive(.assign(assignment))
        try farm.finishRenders()
        #expect(farm.renderer.current.rendered == [assignment.key])
        #expect(farm.sent.filter { $0.type == "piece" }.count == 1)
    }

    @Test func stoppingEndsTheLoopAndCancelsTheRendersInHand() throws {
        let farm = try AgentHarness()
        let assignment = AgentHarness.assignment(chunk: 1)
        farm.coordinator.deliver(.assign(assignment))
        farm.coordinator.whenIdle = { [weak agent = farm.agent] in agent?.stop() }
        try farm.agent.run()
        #expect(farm.sent.first?.isHello == true)
        // The render still running when the loop ended finds its cancellation raised.
        farm.renders.runAll()
        #expect(farm.renderer.current.cancelled == [assignment.key])
    }

    /// Log lines without their time stamps ("   0.00 info rendering" → "info rendering").
    static func texts(_ lines: [String]) -> [String] {
        lines.map { String($0.drop { $0 == " " }.drop { $0 != " " }.dropFirst()) }
    }
}

/// A coordinator of another protocol version: the worker says once why they cannot work
/// together, however often the coordinator sends.
@Suite struct ProtocolMismatchTests {
    @Test func aCoordinatorOfAnotherProtocolIsLoggedOnce() throws {
        let farm = try AgentHarness()
        try farm.start()
        var frames = WireMessage.refused(Refusal(reason: "peer speaks \"farm/1\"")).encoded()
        frames[0] = Array("farm/2".utf8)
        try farm.receive(frames: frames)
        try farm.receive(frames: frames)
        let said = farm.logged.current.filter { $0.contains("cannot work with this worker") }
        #expect(
            said == [
                #"error the coordinator cannot work with this worker: peer speaks "farm/2", this farm speaks "farm/1" "#
                    + "(farm-worker --version)"
            ])
    }

    @Test func aRefusalInThisProtocolIsLogged() throws {
        let farm = try AgentHarness()
        try farm.start()
        try farm.receive(.refused(Refusal(reason: "upgrade one of them")))
        #expect(farm.logged.current.contains("error the coordinator refused this worker: upgrade one of them"))
    }
}
