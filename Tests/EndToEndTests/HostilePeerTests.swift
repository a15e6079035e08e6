import FarmCore
import FarmMedia
import FarmStore
import FarmWire
import Foundation
import TestSupport
import Testing

/// A peer on the coordinator's port that is not a well-behaved worker: it cannot upload for an
/// attempt it does not hold, and flooding without reading the replies does not stall the farm.
@Suite(.serialized) struct HostilePeerTests {
    @Test func aPeerFloodingPiecesForAnotherWorkersAttemptIsIgnoredAndTheJobFinishes() throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try FarmRecoveryTests.slowProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let key = try farm.runningVideoAttempt(of: job, worker: "w1")

            // The rogue claims w1's attempt in a heartbeat, reports progress on it, fails it three
            // times (enough to fail the job), uploads for it and sends a result.
            let rogue = try MessageSocket(.dealer, identity: "rogue")
            try rogue.connect(farm.endpoint)
            let info = WorkerInfo(id: "rogue", host: "rogue", cores: 1, slots: 0, version: FarmVersion.current)
            try rogue.send(WireMessage.hello(info).encoded())
            try rogue.send(
                WireMessage.heartbeat(Heartbeat(worker: info, running: [key], waiting: [], uploading: [])).encoded())
            try Self.reportOnAndFail(key, from: rogue, as: info, farm: farm)
            let bytes = Array("not a segment".utf8)
            try rogue.send(
                WireMessage.piece(UploadPiece(key: key, offset: 0, total: Int64(bytes.count)), bytes).encoded())
            try rogue.send(
                WireMessage.done(
                    ChunkDone(key: key, bytes: Int64(bytes.count), sha256: "00", made: .frames(30, fps: 1))
                )
                .encoded())

            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == reference)
            let attempts = try farm.attempts(job)
            #expect(attempts.allSatisfy { $0.worker == "w1" && $0.outcome == "done" && $0.attempt == 1 }, "\(attempts)")
            let attacked = try #require(try farm.store.chunk(key.chunk))
            // Named as every tool names it: job, chunk index and attempt.
            let label = attacked.work.label(job: job, attempt: key.attempt)
            #expect(farm.coordinator!.output.contains("dropped failed for \(label) from rogue, which does not hold it"))
            #expect(attacked.state == .done && attacked.attempt == key.attempt, "\(attacked)")
        }
    }

    @Test func aPeerThatNeverReadsItsRepliesDoesNotStallTheCoordinator() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir, leaseSeconds: 30)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            // The rogue passes for a worker, takes a chunk of the first job and keeps its lease.
            let held = try farm.submit(
                project, output: dir.appendingPathComponent("held.mov"), chunkArguments: ["--chunk-frames", "30"])
            let rogue = try MessageSocket(.dealer, identity: "rogue")
            try rogue.connect(farm.endpoint)
            let info = WorkerInfo(id: "rogue", host: "rogue", cores: 1, slots: 1, version: FarmVersion.current)
            try rogue.send(WireMessage.hello(info).encoded())
            var own: AttemptKey?
            let deadline = Date().addingTimeInterval(30)
            while own == nil, Date() < deadline {
                guard let frames = try rogue.receive(timeout: 0.5) else { continue }
                if case .assign(let assignment) = try WireMessage(frames: frames) { own = assignment.key }
            }
            let key = try #require(own)
            // From now on it never reads: pieces until told to stop (each answered with an
            // acknowledgement), and a heartbeat every 100 to keep its lease. Unbounded, so the
            // flood outlasts the job however fast this machine reads it.
            let sent = Locked(0)
            let stopFlooding = Locked(false)
            let flooding = Locked(true)
            let flood = Thread {
                defer { flooding.withLock { $0 = false } }
                do {
                    let beat = WireMessage.heartbeat(
                        Heartbeat(worker: info, running: [key], waiting: [], uploading: []))
                    // A dealer's send gives up rather than wait on a full queue; the rogue waits,
                    // so it floods exactly as fast as the coordinator reads.
                    func push(_ message: WireMessage) throws {
                        while try !rogue.send(message.encoded()) { Thread.sleep(forTimeInterval: 0.001) }
                    }
                    var index = 0
                    while !stopFlooding.current {
                        if index % 100 == 0 { try push(beat) }
                        index += 1
                        let piece = UploadPiece(key: key, offset: 0, total: 1 << 20)
                        try push(WireMessage.piece(piece, [UInt8](repeating: 7, count: 16)))
                        sent.withLock { $0 += 1 }
                    }
                } catch {
                    Issue.record("the rogue could not send: \(error)")
                }
            }
            flood.start()
            try farm.wait("the flood to be under way", timeout: 60) { sent.current > 20_000 }
            // Meanwhile a real worker renders a second job from start to end.
            try farm.startWorker("w1")
            let served = try farm.submit(
                project, output: dir.appendingPathComponent("served.mov"),
                chunkArguments: ["--chunk-frames", "30", "--priority", "1"])
            let record = try farm.finish(served, timeout: 120)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(flooding.current, "the flood ended before the job did; the test proves nothing")
            stopFlooding.withLock { $0 = true }
            try farm.wait("the flood to stop", timeout: 300) { !flooding.current }
            print("hostile peer: \(sent.current) pieces sent while another job rendered from start to end")
            #expect(try farm.store.job(held)?.state == .running)
        }
    }

    /// A hello or heartbeat claiming more render slots than a worker may have is refused as
    /// malformed (`WireBounds`): unchecked, 2^31 slots reached the farm's 32-bit columns and the
    /// error stopped `farm serve`.
    @Test func aPeerClaimingTwoBillionSlotsIsRefusedAndTheFarmServesOn() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let rogue = try MessageSocket(.dealer)
            try rogue.connect(farm.endpoint)
            var info = WorkerInfo(
                id: "rogue", host: "rogue", cores: 1, slots: Int(Int32.max) + 1, version: FarmVersion.current)
            try rogue.send(WireMessage.hello(info).encoded())
            try rogue.send(
                WireMessage.heartbeat(Heartbeat(worker: info, running: [], waiting: [], uploading: [])).encoded())
            // A hello within bounds: its welcome comes once the coordinator has handled the others.
            info.slots = 0
            try rogue.send(WireMessage.hello(info).encoded())
            try Self.awaitWelcomes(1, on: rogue)

            try farm.startWorker("w1")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let record = try farm.finish(job, timeout: 120)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            let log = farm.coordinator?.output ?? ""
            #expect(log.contains("ignoring a message: hello: slots 2147483648 is outside 0...1024"), "\(log)")
            #expect(log.contains("ignoring a message: heartbeat: slots 2147483648 is outside 0...1024"))
            #expect(farm.coordinator?.process.isRunning == true)
        }
    }

    /// From a peer that said hello as `info`: progress on `key` far past its end and three
    /// failures of it (enough to fail its job), then a second hello. Its welcome comes after
    /// the coordinator handled all of them (a peer's messages are handled in order), and by
    /// then the attempt must be untouched.
    static func reportOnAndFail(_ key: AttemptKey, from peer: MessageSocket, as info: WorkerInfo, farm: TestFarm)
        throws
    {
        try peer.send(WireMessage.progress(ProgressReport(key: key, frames: 99_999, fps: 1)).encoded())
        for _ in 0..<3 {
            try peer.send(WireMessage.failed(ChunkFailed(key: key, error: "\(info.id) says so")).encoded())
        }
        try peer.send(WireMessage.hello(info).encoded())
        try awaitWelcomes(2, on: peer)
        let live = try farm.store.connection.query(
            "SELECT frames_done, outcome FROM attempts WHERE chunk_id = $1 AND attempt = $2",
            [String(key.chunk), String(key.attempt)])
        let row = try #require(live.first, "the attempt's row")
        #expect(
            try row.decode("frames_done", as: Int64.self) < 99_999
                && row.decode("outcome", as: String.self) != "failed",
            "\(row)")
    }

    /// Waits for `count` welcomes on `socket`, skipping other messages; fails after 30 s.
    static func awaitWelcomes(_ count: Int, on socket: MessageSocket) throws {
        var seen = 0
        let deadline = Date().addingTimeInterval(30)
        while seen < count {
            guard Date() < deadline else { throw TestError.failed("\(seen) of \(count) welcomes in 30 s") }
            guard let frames = try socket.receive(timeout: 0.5) else { continue }
            if case .welcome = try WireMessage(frames: frames) { seen += 1 }
        }
    }
}

/// Outputs land only below the coordinator's output root: refused at submit with exit 2, and
/// failed at the join for a job that reached the database some other way.
@Suite(.serialized) struct OutputRootTests {
    @Test func outputsOutsideTheRootAreRefusedAndNeverWritten() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir.appendingPathComponent("farm"))
            defer { farm.stopAll() }
            let root = farm.directory
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let outside = dir.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("link"), withDestinationURL: outside)

            // Submitted before any coordinator ran: nothing to check against yet, so the join does.
            let early = try farm.submit(
                project, output: outside.appendingPathComponent("early.mov"), chunkArguments: ["--chunk-frames", "30"])
            try farm.start(workers: ["w1"])
            let failed = try farm.finish(early)
            #expect(failed.state == .failed)
            #expect(
                failed.error
                    == "the output \(outside.path)/early.mov is outside the coordinator's output root \(root.path) "
                    + "(see farm serve --output-root)", "\(failed.error ?? "")")

            for escape in [
                outside.appendingPathComponent("a.mov").path, root.path + "/../outside/b.mov",
                root.appendingPathComponent("link/c.mov").path,
            ] {
                let result = try farm.cli(["submit", project.path, "-o", escape])
                #expect(result.status == 2, "\(escape): \(result.stderr)")
                #expect(
                    result.stderr.contains("is outside the coordinator's output root \(root.path)"), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
            // A symbolic link inside the root, pointing out, is refused as a link.
            let canary = outside.appendingPathComponent("canary")
            try Data("canary".utf8).write(to: canary)
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("out.mov"), withDestinationURL: canary)
            let linked = try farm.cli(["submit", project.path, "-o", root.appendingPathComponent("out.mov").path])
            #expect(linked.status == 2, "\(linked.stderr)")
            #expect(linked.stderr.contains("is a symbolic link; the farm never writes through one"), "\(linked.stderr)")

            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["canary"])
            #expect(try String(contentsOf: canary, encoding: .utf8) == "canary")
            // Inside the root all is well.
            let inside = try farm.submit(
                project, output: root.appendingPathComponent("good.mov"), chunkArguments: ["--chunk-frames", "30"])
            #expect(try farm.finish(inside).state == .done, "\(farm.logs)")
        }
    }
}

/// The mechanism under the coordinator's loop: a router socket's send never waits on a peer.
@Suite struct RouterSendTests {
    @Test func aRouterDropsMessagesForAPeerThatDoesNotReadInsteadOfWaiting() throws {
        let router = try MessageSocket(.router)
        try router.bind("tcp://127.0.0.1:*")
        let peer = try MessageSocket(.dealer, identity: "silent")
        try peer.connect(router.lastEndpoint)
        try peer.send([Array("hello".utf8)])
        let greeting = try #require(try router.receive(timeout: 5))
        #expect(greeting.first == Array("silent".utf8))
        // 200k messages of 1 KiB (200 MB) to a peer that reads none: far past every queue and
        // socket buffer between them. A blocking send would never return; this must, dropping.
        let outcome = Locked<(sent: Int, dropped: Int)?>(nil)
        let sender = Thread {
            var counts = (sent: 0, dropped: 0)
            let payload = [UInt8](repeating: 1, count: 1024)
            for _ in 0..<200_000 {
                if (try? router.send([Array("silent".utf8), payload])) == true {
                    counts.sent += 1
                } else {
                    counts.dropped += 1
                }
            }
            outcome.withLock { $0 = counts }
        }
        sender.start()
        let deadline = Date().addingTimeInterval(60)
        while outcome.current == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let counts = try #require(outcome.current, "the router's send blocked on a peer that does not read")
        #expect(counts.dropped > 0 && counts.sent > 0, "\(counts)")
        _ = peer
    }

}
