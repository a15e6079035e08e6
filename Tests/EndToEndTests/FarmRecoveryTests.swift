import FarmCore
import FarmDataFolder
import FarmMedia
import FarmRender
import FarmStore
import FarmWire
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What happens when processes die or media is bad: nothing accepted is lost or redone, stale
/// results are fenced off, and a chunk that cannot render fails its job with its own error.
@Suite(.serialized) struct FarmRecoveryTests {
    /// A project whose chunks take long enough to kill a process in the middle of one.
    static func slowProject(in dir: URL) throws -> (project: URL, reference: [String]) {
        try projectWithReference(in: dir, width: 640, height: 360, seconds: 8)
    }

    /// The seam project and the frame hashes of its `--local` render, which a farm's render
    /// must match.
    static func projectWithReference(in dir: URL, width: Int = 160, height: Int = 120, seconds: Int = 4) throws
        -> (project: URL, reference: [String])
    {
        let project = try FarmTests.seamProject(in: dir, width: width, height: height, seconds: seconds)
        let local = dir.appendingPathComponent("reference.mov")
        try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
        return (project, try frameHashes(local))
    }

    @Test func killedWorkerChunkIsReleasedAndItsLateResultIsFenced() throws {
        try withTemporaryDirectory { dir in
            // 720p, so that a release build's chunk of 60 frames takes more than one progress
            // report (0.4 s) to render: at 640x360 it rendered in one.
            let (project, reference) = try Self.projectWithReference(in: dir, width: 1280, height: 720, seconds: 8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let victim = try farm.startWorker("victim")
            try farm.startWorker("survivor")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "60"])
            // Kill the victim once it has rendered part of a video chunk. It is frozen first and
            // the attempt read again: a chunk it finished between its last progress report and
            // the signal is not the one this test needs, so it goes on to its next chunk (then
            // taken however far along, so that the victim's last chunk cannot be missed).
            var killed: (chunk: Int64, attempt: Int)?
            let running = { (chunk: Int64, attempt: Int) in
                try farm.store.connection.query(
                    "SELECT 1 FROM attempts WHERE chunk_id = $1 AND attempt = $2 AND outcome = 'running'",
                    [String(chunk), String(attempt)]
                ).count == 1
            }
            var leastFrames = 1
            while killed == nil {
                var candidate: (chunk: Int64, attempt: Int)?
                try farm.wait("the victim to be mid-chunk", timeout: 120) {
                    let rows = try farm.store.connection.query(
                        """
                        SELECT a.chunk_id, a.attempt FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                        WHERE c.job_id = $1 AND c.kind = 'video' AND a.worker_id = 'victim'
                          AND a.outcome = 'running'
                          AND a.frames_done >= $2 AND a.frames_done < c.end_frame - c.start_frame
                        """, [String(job), String(leastFrames)])
                    guard let row = rows.first else {
                        // Past its last chunk the victim can never be caught: say so now.
                        if try farm.store.job(job)?.isFinished == true {
                            throw TestError.failed(
                                "job \(job) finished before the victim was caught mid-chunk\n\(farm.logs)")
                        }
                        return false
                    }
                    candidate = (try row.decode("chunk_id"), try row.decode("attempt"))
                    return true
                }
                let (chunk, attempt) = try #require(candidate)
                victim.kill(SIGSTOP, wait: false)
                // An upload the coordinator had whole when the victim froze is accepted first.
                Thread.sleep(forTimeInterval: 1.5)
                if try running(chunk, attempt) {
                    killed = candidate
                } else {
                    victim.kill(SIGCONT, wait: false)
                    leastFrames = 0
                }
            }
            victim.kill(SIGKILL)
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == reference)
            let (chunk, attempt) = try #require(killed)
            let history = try farm.store.connection.query(
                "SELECT attempt, worker_id, outcome FROM attempts WHERE chunk_id = $1 ORDER BY attempt", [String(chunk)]
            )
            #expect(history.count >= 2)
            let attempts = try history.map { row in
                (
                    attempt: try row.decode("attempt", as: Int.self),
                    worker: try row.decode("worker_id", as: String.self),
                    outcome: try row.decode("outcome", as: String.self)
                )
            }
            #expect(attempts.first { $0.attempt == attempt }?.outcome == "lost")
            #expect(attempts.last?.worker == "survivor")
            #expect(attempts.last?.outcome == "done")

            // Replay the killed attempt's result to the coordinator's socket under the victim's
            // name: no one holds that attempt any more, so the pieces and the result are dropped
            // unread (the fence would reject them too).
            let segment = dir.appendingPathComponent(
                "data/jobs/\(job)/segment-\(String(format: "%06d", try farm.store.chunk(chunk)!.index)).mov")
            let before = try SHA256.file(segment.path)
            let socket = try MessageSocket(.dealer, identity: "victim")
            try socket.connect(farm.endpoint)
            let bytes = Array("not a segment".utf8)
            let key = AttemptKey(chunk: chunk, attempt: attempt)
            try socket.send(
                WireMessage.piece(UploadPiece(key: key, offset: 0, total: Int64(bytes.count)), bytes).encoded())
            try socket.send(
                WireMessage.done(
                    ChunkDone(key: key, bytes: Int64(bytes.count), sha256: "00", made: .frames(60, fps: 1))
                )
                .encoded())
            var answers: [WireMessage] = []
            let deadline = Date().addingTimeInterval(3)
            while Date() < deadline {
                guard let frames = try socket.receive(timeout: 0.5) else { continue }
                answers.append(try WireMessage(frames: frames))
            }
            #expect(answers.isEmpty, "\(answers)")
            #expect(try farm.store.chunk(chunk)?.state == .done)
            #expect(try farm.store.chunk(chunk)?.attempt == attempts.last?.attempt)
            #expect(try SHA256.file(segment.path) == before)
        }
    }

    @Test func killedCoordinatorResumesWithoutRedoingAcceptedChunks() throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try Self.slowProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            try farm.wait("two chunks accepted") {
                try farm.store.connection.query(
                    "SELECT count(*) FROM chunks WHERE job_id = $1 AND state = 'done'", [String(job)]
                )[0].decode("count", as: Int64.self) >= 2
            }
            farm.coordinator?.kill(SIGKILL)
            // The database still holds everything; a new coordinator takes over. A chunk is
            // accepted once its row says done and its segment is in place: the row is written
            // first, so a kill between the two leaves a chunk that is found missing and rendered
            // again (UploadIntake.conclude), which is the promise, not a redo. What each accepted
            // chunk's attempts were at the kill is what they must still be at the end.
            let folder = JobFolder(dataDirectory: farm.dataDirectory, job: job)
            let accepted = Set(
                try farm.store.connection.query(
                    "SELECT \(ChunkRecord.columns) FROM chunks WHERE job_id = $1 AND state = 'done'", [String(job)]
                ).map { try ChunkRecord(row: $0) }.filter {
                    FileManager.default.fileExists(atPath: folder.result(of: $0.work).path)
                }.map { "\($0.kind) \($0.index)" })
            let attemptsOfAccepted = {
                try farm.attempts(job).filter { accepted.contains("\($0.kind) \($0.index)") }
            }
            let describe = {
                (rows: [(index: Int, kind: String, attempt: Int, worker: String, outcome: String, error: String?)]) in
                rows.map { "\($0.kind) \($0.index) attempt \($0.attempt) \($0.worker) \($0.outcome)" }
            }
            let atKill = describe(try attemptsOfAccepted())
            Thread.sleep(forTimeInterval: 1)
            try farm.startCoordinator()
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == reference)
            let end = try attemptsOfAccepted()
            #expect(describe(end) == atKill, "rendered again: \(atKill) at the kill, \(describe(end)) at the end")
            // Each accepted chunk's last attempt (they come in order) is the one it was accepted from.
            let lastOutcomes = Dictionary(grouping: end) { "\($0.kind) \($0.index)" }.mapValues { $0.last?.outcome }
            #expect(lastOutcomes.values.allSatisfy { $0 == "done" }, "\(describe(end))")
        }
    }

    @Test func mediaChangedAfterSubmissionFailsTheJobAtOnce() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            // After submission the clip shown from 1 s to 1.7 s is replaced: only chunk 1 needs it
            // (it is muted, so no audio block reads it either). The job was pinned to the
            // clip as submitted, so no worker renders from the new one.
            let clip = dir.appendingPathComponent("c.mp4")
            let intact = try Data(contentsOf: clip)
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: clip)
            try farm.startCoordinator()
            for id in ["w1", "w2", "w3"] { try farm.startWorker(id) }
            let record = try farm.finish(job)
            #expect(record.state == .failed)
            let error = try #require(record.error)
            #expect(error == "assets.c: media changed since the job was submitted (\(clip.path))", "\(error)")
            #expect(try farm.cli(["wait", String(job)]).status == 1, "farm wait of a failed job exits 1")
            // Rendering again cannot help: the first worker to see the change fails the job.
            let failures = try farm.attempts(job).filter { $0.outcome == "failed" }
            #expect(failures.count == 1, "\(failures)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.hasPrefix(".out.mov")
            }
            #expect(leftovers.isEmpty)

            // The operator puts the clip back and retries: the failed chunk gets fresh tries, the
            // accepted ones are kept, and the file matches a render that never failed.
            try intact.write(to: clip)
            // The damaged chunk, and any chunk another worker was still rendering when the job
            // failed and that was stopped rather than finished, are what is left to render; the
            // timing decides the latter, so count once no chunk of the job runs any more.
            try farm.wait("the failed job's chunks to stop") {
                try farm.store.connection.query(
                    "SELECT 1 FROM chunks WHERE job_id = $1 AND state = 'running'", [String(job)]
                ).isEmpty
            }
            let open = try farm.store.connection.query(
                "SELECT idx FROM chunks WHERE job_id = $1 AND state <> 'done'", [String(job)]
            ).map { try $0.decode("idx", as: Int.self) }
            #expect(open.contains(try #require(failures.first?.index)))
            let retry = try farm.cli(["retry", String(job)])
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect(
                retry.stdout.contains("job \(job) queued again: \(open.count) chunk(s) to render"), "\(retry.stdout)")
            // The bytes are back, but written anew (another ctime): the retry pins the file as it
            // is now, and the render must read what accepted chunks read of it.
            #expect(retry.stdout.contains("assets.c: changed since the job was pinned; pinned as it is now"))
            let retried = try farm.finish(job)
            #expect(retried.state == .done, "\(retried.error ?? "")\n\(farm.logs)")
            #expect(retried.error == nil)
            let reference = dir.appendingPathComponent("reference.mov")
            try FarmTests.farm(["render", project.path, "-o", reference.path, "--local"])
            #expect(try frameHashes(output) == frameHashes(reference))
            let acceptedOnce = try farm.attempts(job).filter { $0.outcome == "done" }
            #expect(acceptedOnce.count == 5, "each chunk is accepted once: \(acceptedOnce)")
        }
    }

    /// A segment verifier that runs the shell command `onAudio` for an audio block's request and
    /// hands every other request to the real one (`farm verify-segments`).
    static func verifier(in dir: URL, named name: String, onAudio: String) throws -> URL {
        let verifier = dir.appendingPathComponent(name)
        try writeExecutable(
            """
            #!/bin/sh
            while IFS= read -r request; do
              case "$request" in
                *'"kind":"audio"'*) \(onAudio) ;;
                *) printf '%s\\n' "$request" | \(farmProgram) verify-segments ;;
              esac
            done

            """, to: verifier)
        return verifier
    }

    /// A segment that crashes FFmpeg while the coordinator checks it costs the checking child
    /// process, not the coordinator: the attempt fails, the chunk is a poison chunk after its
    /// limit, and the job fails with the reason while the coordinator serves on.
    @Test func aSegmentThatCrashesItsVerifierFailsItsJobNotTheCoordinator() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            // Stands in for an FFmpeg crash on the audio blocks; checks video with the real verifier.
            let verifier = try Self.verifier(in: dir, named: "crashing-verifier", onAudio: "kill -SEGV $$")
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--segment-verifier", verifier.path])
            try farm.startWorker("w1")
            try farm.startWorker("w2")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let record = try farm.finish(job)
            #expect(record.state == .failed)
            let error = try #require(record.error, "\(farm.logs)")
            #expect(error.contains("the verifier crashed (signal 11) reading the segment"), "\(error)")
            #expect(error.contains("audio block 0"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let audioAttempts = try farm.attempts(job).filter { $0.kind == "audio" }
            #expect(audioAttempts.count == 3 && audioAttempts.allSatisfy { $0.outcome == "failed" }, "\(audioAttempts)")
            #expect(farm.coordinator?.process.isRunning == true, "\(farm.logs)")
            // The video chunks went through the real verifier, in its own process, and passed.
            #expect(try farm.attempts(job).contains { $0.kind == "video" && $0.outcome == "done" })
        }
    }

    /// A farm killed outright (coordinator and workers, SIGKILL) leaves its workers listed as
    /// live. The next coordinator on that database marks them lost, so a block that fails on
    /// every live worker fails its job with the reason instead of waiting for them forever.
    @Test func aBlockThatFailsOnEveryLiveWorkerEndsItsJobDespiteAKilledFarmsWorkers() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let verifier = try Self.verifier(
                in: dir, named: "audio-refusing-verifier",
                onAudio: #"echo '{"ok":false,"reason":"this test refuses every audio block"}'"#)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let killed = [try farm.startWorker("killed-1"), try farm.startWorker("killed-2")]
            try farm.wait("the first farm's workers to be recorded") {
                try farm.store.connection.query(
                    "SELECT count(*) AS n FROM workers WHERE state <> 'lost'")[0].decode("n", as: Int64.self) == 2
            }
            farm.coordinator?.kill()
            for worker in killed { worker.kill() }

            try farm.startCoordinator(arguments: ["--segment-verifier", verifier.path])
            try farm.startWorker("w1")
            try farm.startWorker("w2")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let record = try farm.finish(job, timeout: 60)
            #expect(record.state == .failed, "\(farm.logs)")
            let error = try #require(record.error)
            #expect(error.hasPrefix("audio block 0 failed on 3 attempts: "), "\(error)")
            #expect(error.contains("this test refuses every audio block"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            #expect(farm.coordinator?.output.contains("worker killed-1 has not been heard") == true, "\(farm.logs)")
            let workers = try farm.store.connection.query("SELECT id FROM workers WHERE state = 'lost' ORDER BY id")
            #expect(try workers.map { try $0.decode("id", as: String.self) } == ["killed-1", "killed-2"])
        }
    }

    /// A verifier that cannot even start is the coordinator's trouble, not the segments': no
    /// attempt fails, and once a coordinator with a working verifier is back the same attempts
    /// are accepted.
    @Test func aVerifierThatCannotStartFailsNoAttempt() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let missing = dir.appendingPathComponent("no-such-verifier").path
            try farm.startCoordinator(arguments: ["--segment-verifier", missing])
            try farm.startWorker("w1")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "60"])
            try farm.wait("the coordinator to find it cannot check uploads") {
                farm.coordinator?.output.contains("cannot check the upload now") == true
            }
            #expect(
                farm.coordinator?.output.contains("posix_spawn \(missing): No such file or directory") == true,
                "\(farm.logs)")
            #expect(try farm.attempts(job).allSatisfy { $0.outcome == "running" }, "\(farm.logs)")
            farm.coordinator?.stop()
            try farm.startCoordinator()
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            try FarmOutageTests.expectEachChunkRenderedOnce(farm, job: job)
        }
    }
}
