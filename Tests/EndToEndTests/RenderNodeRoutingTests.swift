import FarmCore
import FarmStore
import FarmWire
import Foundation
import TestSupport
import Testing

/// Pools, kinds of render node and per-attempt logs on a real farm: `farm-worker --tags`,
/// `farm submit --requires`, `--x264-level` and `farm logs JOB --chunk N`.
@Suite(.serialized) struct RenderNodeRoutingTests {
    /// A 2 s project in `dir`, lossy H.264 unless `lossless`.
    static func project(in dir: URL, lossless: Bool = true) throws -> URL {
        let file = try FarmTests.seamProject(in: dir, seconds: 2)
        guard !lossless else { return file }
        let text = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "\"lossless\": true, ", with: "")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func aJobRequiringATagWaitsSayingWhyThenRendersOnlyOnTaggedWorkers() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.project(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["plain"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(
                project, output: output, chunkArguments: ["--chunk-frames", "15", "--requires", "4k"])

            // The untagged worker is live and idle, and the job says why it waits.
            try farm.wait("the job to say why it waits") {
                try farm.cli(["status", String(job)]).stdout.contains("waiting   no worker has tags 4k")
            }
            #expect(try farm.attempts(job).isEmpty)
            let listed = try farm.cli(["status"]).stdout
            #expect(listed.contains("job \(job) waits: no worker has tags 4k"))

            try farm.startWorker("big", arguments: ["--tags", "site-a,4K"])
            #expect(try farm.finish(job).state == .done)
            // Measured with the job's end, not at the retention pass's next round (up to 5 s later).
            let ended = try #require(try farm.store.jobStatuses(id: job).first)
            #expect((ended.segmentBytes ?? 0) > 0)
            let attempts = try farm.attempts(job)
            #expect(!attempts.isEmpty)
            #expect(attempts.allSatisfy { $0.worker == "big" })
            let workers = try farm.json([WorkerStatus].self, ["workers"])
            #expect(workers.first { $0.id == "big" }?.tags == ["4k", "site-a"])
            #expect(workers.first { $0.id == "plain" }?.tags == [])
            let status = try farm.json(JobDetail.self, ["status", String(job)])
            #expect(status.job.requires == ["4k"])
            #expect(status.job.waitingFor == nil)
        }
    }

    @Test func workersOfAnotherInstructionSetNeverRenderChunksOfOneJob() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.project(in: dir, lossless: false)
            try FarmTests.farm(["render", project.path, "-o", dir.appendingPathComponent("local.mov").path, "--local"])
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            // `b` is capped below this CPU's level: another kind, idle with two slots while `a`,
            // with one, renders the job. Without kinds, b would take half of its chunks.
            try farm.start(workers: ["a"])
            try farm.startWorker("b", arguments: ["--x264-level", "SSE2Fast", "--slots", "2"])
            try farm.wait("both workers to join") {
                Set(try farm.json([WorkerStatus].self, ["workers"]).map(\.id)) == ["a", "b"]
            }
            let first = dir.appendingPathComponent("first.mov")
            let job = try farm.submit(project, output: first, chunkArguments: ["--chunk-frames", "6"])
            let second = dir.appendingPathComponent("second.mov")
            // Without the cache, which would rightly reuse the first job's segments.
            let other = try farm.submit(
                project, output: second, chunkArguments: ["--chunk-frames", "6", "--no-cache"])
            #expect(try farm.finish(job).state == .done)
            #expect(try farm.finish(other).state == .done)

            let workers = try farm.json([WorkerStatus].self, ["workers"])
            let kinds = Dictionary(uniqueKeysWithValues: workers.map { ($0.id, $0) })
            #expect(kinds["a"]?.kind != kinds["b"]?.kind)
            #expect(kinds["b"]?.kindSummary.contains("x264 SSE2Fast") == true)
            // The first claim asks for both idle workers, `a` first: the job is a's kind.
            let attempts = try farm.attempts(job)
            #expect(attempts.count >= 5)
            #expect(attempts.allSatisfy { $0.worker == "a" })
            // The other job is one kind's too, whichever took it first.
            #expect(Set(try farm.attempts(other).map(\.worker)).count == 1)
            let detail = try farm.json(JobDetail.self, ["status", String(job)])
            #expect(detail.job.renderKind == kinds["a"]?.kindSummary)
            #expect(try farm.cli(["status", String(job)]).stdout.contains("renders   on \(kinds["a"]!.kindSummary)"))
            #expect(try frameHashes(first) == frameHashes(dir.appendingPathComponent("local.mov")))
        }
    }

    @Test func farmLogsShowsTheWorkersOwnLinesForAFailedAttempt() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.project(in: dir)
            let empty = dir.appendingPathComponent("empty-media")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            // This worker's media root holds none of the project's files: every chunk fails on it.
            try farm.startWorker("w1", arguments: ["--media-root", empty.path])
            let job = try farm.submit(
                project, output: dir.appendingPathComponent("out.mov"), chunkArguments: ["--chunk-frames", "30"])
            // The audio block goes out first and fails its three attempts, which fails the job.
            let ended = try farm.finish(job)
            #expect(ended.state == .failed)
            #expect(ended.error?.hasPrefix("audio block 0 failed on 3 attempts: ") == true)

            let shown = try farm.cli(["logs", String(job), "--audio-block", "0"])
            #expect(shown.status == 0)
            let text = shown.stdout
            #expect(text.contains("job \(job) audio block 0 attempt 1 on w1, failed:"))
            #expect(text.contains("info assigned (samples 0..<96000) to w1 on"))
            #expect(text.contains("info rendering"))
            #expect(text.contains("error failed: "))
            let attempts = try farm.json([AttemptStatus].self, ["logs", String(job), "--audio-block", "0"])
            #expect(attempts.first?.log?.contains { $0.hasSuffix("info rendering") } == true)
            // The worker's own log names the attempt as the command line does.
            #expect(farm.workers[0].output.contains("job \(job) audio block 0 attempt 1 failed: "))
            // An audio block that made nothing made no "0 frames".
            #expect(!text.contains("0 frames"))
            // Nothing will render the failed job's chunks: unfinished, not queued.
            let status = try farm.cli(["status", String(job)]).stdout
            #expect(status.contains("chunks    0 done · 3 unfinished · 3 total"), "\(status)")
            #expect(status.contains("2 more are done or unfinished"), "\(status)")
            let missing = try farm.cli(["logs", String(job), "--audio-block", "5"])
            #expect(missing.status == 3)
            #expect(
                missing.stderr == "farm: job \(job) has no audio block 5 (farm status \(job) --all lists its blocks)\n")
            // A job's whole list carries no logs.
            #expect(try farm.json([AttemptStatus].self, ["logs", String(job)]).allSatisfy { $0.log == nil })
        }
    }

    @Test func aPeerOfAnotherProtocolVersionIsRefusedAndTheCoordinatorSaysWhy() throws {
        try withTemporaryDirectory { dir in
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let peer = try MessageSocket(.dealer, identity: "future")
            try peer.connect(farm.endpoint)
            let info = WorkerInfo(id: "future", host: "future", cores: 1, slots: 1, version: "9.0.0")
            var hello = WireMessage.hello(info).encoded()
            hello[0] = Array("farm/2".utf8)
            // Twice: the refusal is sent and logged once per connection.
            try peer.send(hello)
            try peer.send(hello)
            let reply = try #require(try peer.receive(timeout: 10))
            guard case .refused(let refusal) = try WireMessage(frames: reply) else {
                Issue.record("expected a refusal, got \(reply.map { String(decoding: $0, as: UTF8.self) })")
                return
            }
            let reason =
                #"peer speaks "farm/2", this farm speaks "farm/1"; upgrade the worker or the coordinator so both "#
                + "speak one version (farm --version)"
            #expect(refusal.reason == reason)
            try farm.wait("the coordinator to log the refusal") {
                farm.coordinator!.output.contains(reason)
            }
            #expect(farm.coordinator!.output.components(separatedBy: reason).count == 2)
            #expect(try farm.json([WorkerStatus].self, ["workers"]).isEmpty)
        }
    }
}
