import FarmCoordinator
import FarmCore
import FarmDataFolder
import FarmPostgres
import FarmRender
import FarmStore
import Foundation
import Logging
import TestSupport
import Testing

/// The join, turned by hand in one process: a job whose chunks are all accepted is joined on a
/// thread of its own and recorded; a segment missing on disk is rendered again instead; an
/// output outside the root fails the job; a job cancelled during its join leaves no output; a
/// killed join's temporary file is removed. The database is a real PostgreSQL and the segments
/// real files, rendered here by the workers' own code (`ChunkedRender`).
@Suite struct JoinSchedulerTests {
    /// Two seconds of a solid and a tone: two 30-frame chunks and one audio block.
    static let project = """
        {
          "output": {"width": 64, "height": 48, "fps": "30"},
          "export": {"container": "mov", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {"tone": {"path": "tone.wav"}},
          "tracks": [
            {"kind": "video", "items": [{"solid": "#336699", "at": "0", "duration": "2"}]},
            {"kind": "audio", "items": [{"asset": "tone", "at": "0", "duration": "2"}]}
          ]
        }
        """

    struct Farm {
        let store: FarmStore
        let job: Int64
        let scheduler: JoinScheduler
        let folder: JobFolder
        let output: URL
        let loaded: LoadedProject

        /// Runs the joins started and waits for their threads, then records them.
        func joinAndRecord() throws {
            try scheduler.startJoins()
            if scheduler.isJoining { waitForTheJoinsThread() }
            try scheduler.finishJoins()
        }

        /// Waits (a minute at most) until a join's thread has ended and waits to be recorded.
        func waitForTheJoinsThread() {
            let deadline = Date().addingTimeInterval(60)
            while !scheduler.hasFinished && Date() < deadline { usleep(10_000) }
        }

        func state() throws -> JobState { try #require(try store.job(job)).state }
    }

    /// A private database holding the project's job, every chunk and block accepted from `w1`
    /// with its file in the job's folder, and a scheduler for it writing into `outputRoot`.
    static func withAcceptedJob(outputRoot: String = "out", _ body: (Farm) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            try server.start()
            defer { server.stop() }
            let store = try FarmStore(url: server.connectionString)
            try TestMedia.make("tone.wav", in: dir, audio: "sine=frequency=440:sample_rate=48000:duration=3")
            let file = dir.appendingPathComponent("project.json")
            try Data(project.utf8).write(to: file)
            let loaded = try ProjectLoader().load(file: file.path)
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            let output = dir.appendingPathComponent("out/final.mov")
            let submission = try JobSubmission(
                loaded: loaded, file: file.path, mediaRoot: nil, output: output, container: .mov,
                chunkSize: .frames(30))
            #expect(submission.chunks.count == 2 && submission.audioBlocks.count == 1)
            let job = try store.submit(submission)
            let data = dir.appendingPathComponent("data")
            let folder = JobFolder(dataDirectory: data, job: job)
            try folder.create()
            let chunked = ChunkedRender(loaded: loaded, workDirectory: folder.url)
            for chunk in submission.chunks { _ = try chunked.renderSegment(chunk) }
            for block in submission.audioBlocks { _ = try chunked.renderAudioBlock(block) }
            _ = try store.workerSeen(
                WorkerInfo(id: "w1", host: "h", cores: 4, slots: 4, version: FarmVersion.current), rendering: true)
            for claimed in try store.claim([ClaimRequest(worker: "w1", count: 4)], leaseSeconds: 60) {
                let made: WorkMade =
                    switch claimed.work {
                    case .video(let chunk): .frames(chunk.frameCount, fps: 30)
                    case .audio(let block), .loudness(let block): .samples(block.sampleCount)
                    }
                #expect(try store.accept(claimed.key, made: made))
            }
            let scheduler = JoinScheduler(
                store: store, logger: Logger(label: "join-test"), dataDirectory: data, removeSegmentsWhenDone: true,
                outputRoot: OutputRoot(dir.appendingPathComponent(outputRoot)))
            try body(
                Farm(
                    store: store, job: job, scheduler: scheduler, folder: folder, output: output, loaded: loaded))
        }
    }

    @Test func aJobWithEveryChunkAcceptedIsJoinedAndDone() throws {
        try Self.withAcceptedJob { farm in
            try farm.joinAndRecord()
            #expect(try farm.state() == .done)
            // The file the workers' segments make, as `farm render --local` makes it.
            let local = farm.output.deletingLastPathComponent().appendingPathComponent("local.mov")
            try LocalRender(loaded: farm.loaded).render(frames: 0..<farm.loaded.project.frameCount, to: local)
            #expect(try frameHashes(farm.output) == frameHashes(local))
            #expect(try audioHash(farm.output) == audioHash(local))
            #expect(try frameHashes(farm.output).count == 60)
            // `removeSegmentsWhenDone`: the job's folder goes once it is recorded.
            #expect(!FileManager.default.fileExists(atPath: farm.folder.url.path))
        }
    }

    @Test func aSegmentMissingOnDiskIsRenderedAgainNotJoined() throws {
        try Self.withAcceptedJob { farm in
            try FileManager.default.removeItem(at: farm.folder.result(kind: .video, index: 1))
            try farm.scheduler.startJoins()
            #expect(!farm.scheduler.isJoining)
            #expect(try farm.state() == .running)
            let chunks = try farm.store.jobDetail(farm.job).chunks
            #expect(chunks.map(\.state) == [.done, .done, .queued])
            #expect(!FileManager.default.fileExists(atPath: farm.output.path))
            // Rendered again (here, put back) and accepted: the next pass joins.
            let claimed = try #require(try farm.store.claim(worker: "w1", leaseSeconds: 60))
            guard case .video(let chunk) = claimed.work else {
                Issue.record("claimed \(claimed.work)")
                return
            }
            #expect(chunk == Chunk(index: 1, start: 30, end: 60))
            _ = try ChunkedRender(loaded: farm.loaded, workDirectory: farm.folder.url).renderSegment(chunk)
            #expect(try farm.store.accept(claimed.key, made: .frames(30, fps: 30)))
            try farm.joinAndRecord()
            #expect(try farm.state() == .done)
            #expect(try frameHashes(farm.output).count == 60)
        }
    }

    @Test func anOutputOutsideTheRootFailsTheJobUnwritten() throws {
        try Self.withAcceptedJob(outputRoot: "elsewhere") { farm in
            try farm.scheduler.startJoins()
            #expect(!farm.scheduler.isJoining)
            let job = try #require(try farm.store.job(farm.job))
            #expect(job.state == .failed)
            #expect(job.error?.contains("is outside the coordinator's output root") == true, "\(job.error ?? "")")
            #expect(!FileManager.default.fileExists(atPath: farm.output.path))
        }
    }

    @Test func aJobCancelledDuringItsJoinLeavesNoOutput() throws {
        try Self.withAcceptedJob { farm in
            try farm.scheduler.startJoins()
            #expect(farm.scheduler.isJoining)
            _ = try farm.store.cancel(job: farm.job)
            farm.waitForTheJoinsThread()
            // The join's thread wrote the file; recording it finds the job cancelled.
            #expect(FileManager.default.fileExists(atPath: farm.output.path))
            try farm.scheduler.finishJoins()
            #expect(try farm.state() == .cancelled)
            #expect(!FileManager.default.fileExists(atPath: farm.output.path))
        }
    }

    @Test func aKilledJoinsTemporaryFileIsRemovedByTheNextJoin() throws {
        try Self.withAcceptedJob { farm in
            // What a coordinator killed mid-join leaves: its temporary file, named for its pid,
            // a pid no process holds now.
            let dead = Process()
            dead.executableURL = URL(fileURLWithPath: "/bin/true")
            try dead.run()
            dead.waitUntilExit()
            let leftover = farm.output.deletingLastPathComponent().appendingPathComponent(
                ".final.mov.partial-\(dead.processIdentifier)")
            try Data("half a file".utf8).write(to: leftover)
            try farm.joinAndRecord()
            #expect(try farm.state() == .done)
            #expect(!FileManager.default.fileExists(atPath: leftover.path))
        }
    }
}
