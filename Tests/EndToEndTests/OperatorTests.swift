import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The operator's commands against a real farm: a coordinator and workers as processes, a real
/// PostgreSQL, real media. Each test drives the `farm` executable as an operator would.
@Suite(.serialized) struct OperatorTests {
    /// 240 frames at 640x360: slow enough in a debug build to act in the middle of a render.
    static let slowChunks = ["--chunk-frames", "20"]

    /// 720p: chunks of 90 frames or more take a second or two, long enough to see them move and stop them midway.
    static func heavyProject(in dir: URL, seconds: Int) throws -> URL {
        try FarmTests.seamProject(in: dir, width: 1280, height: 720, seconds: seconds)
    }

    /// Every state change an operator makes is visible to `farm status JOB --json` at once.
    static func status(_ farm: TestFarm, _ job: Int64) throws -> JobDetail {
        try farm.json(JobDetail.self, ["status", String(job)])
    }

    /// The one value of `sql`, a `SELECT count(...)` left unnamed (so its column is `count`).
    static func count(_ farm: TestFarm, _ sql: String, _ parameters: [String?] = []) throws -> Int64 {
        try farm.store.connection.query(sql, parameters)[0].decode("count")
    }

    /// The newest attempt's id, 0 before the first.
    static func lastAttempt(_ farm: TestFarm) throws -> Int64 {
        try farm.store.connection.query("SELECT coalesce(max(id), 0) AS id FROM attempts")[0].decode("id")
    }

    // MARK: farm watch

    @Test func watchRedrawsInPlaceInATerminal() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.heavyProject(in: dir, seconds: 8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "60"])
            // A tmux server of the test's own (-L), with no user configuration (-f /dev/null).
            let tmux = { (arguments: [String]) in
                try run("tmux", ["-L", "farm-watch-\(getpid())", "-f", "/dev/null"] + arguments)
            }
            _ = try tmux(["new-session", "-d", "-s", "watch", "-x", "160", "-y", "50"])
            defer { _ = try? tmux(["kill-server"]) }
            let command = "\(farmProgram) watch \(job) --database '\(farm.database)'; echo watch-exit=$?"
            _ = try tmux(["send-keys", "-t", "watch", command, "Enter"])
            func pane() throws -> [String] {
                try tmux(["capture-pane", "-p", "-t", "watch"]).stdout.components(separatedBy: "\n")
            }
            // The view is up before any worker exists: 0 frames, everything queued.
            try farm.wait("the watch view") { try pane().contains { $0.contains("0/240 frames") } }
            try farm.startWorker("w1")
            try farm.startWorker("w2")

            let overall = try Regex(#"([0-9.]+)%  ([0-9]+)/240 frames  [0-9.-]+ fps  ETA"#)
            let chunkBar = try Regex(#"^  chunk [0-9]+ +[0-9]+\.\.[0-9]+ +w[12] +[█░]+ [0-9]+/60  [0-9.]+ fps"#)
            let exitLine = try Regex(#"watch-exit=[0-9]+ *"#)
            var frames: [Int] = []
            var chunkBars: Set<String> = []
            var finalPane: [String] = []
            try farm.wait("the watch to end", timeout: 300) {
                let lines = try pane()
                let bars = lines.compactMap { try? overall.firstMatch(in: $0) }
                // Redrawn in place: one overall bar on screen, never a scrolling list.
                #expect(bars.count <= 1, "\(lines.joined(separator: "\n"))")
                if let bar = bars.first, let count = Int(bar.output[2].substring ?? "") { frames.append(count) }
                for line in lines where (try? chunkBar.firstMatch(in: line)) != nil { chunkBars.insert(line) }
                finalPane = lines
                // The typed command may wrap so that a line starts "watch-exit=$?": only a
                // status the shell printed ends the wait.
                return lines.contains { (try? exitLine.wholeMatch(in: $0)) != nil }
            }
            let text = finalPane.joined(separator: "\n")
            print(
                "watch: overall bar read \(frames.count) times, frames \(Array(Set(frames)).sorted()); "
                    + "\(chunkBars.count) distinct chunk bar lines, e.g. \(chunkBars.sorted().first ?? "none")"
            )
            print("watch: final screen\n\(text.trimmingCharacters(in: .whitespacesAndNewlines))")
            #expect(frames.first == 0)
            #expect(frames.last == 240)
            #expect(frames == frames.sorted(), "the overall bar went back: \(frames)")
            #expect(Set(frames).count >= 4, "the overall bar should advance in steps: \(frames)")
            #expect(!chunkBars.isEmpty, "no per-chunk bar seen")
            #expect(text.contains("job \(job) done: \(output.path), 240 frames in "), "\(text)")
            #expect(text.contains("4 video chunks and 1 audio block, 5 attempts"), "\(text)")
            #expect(text.contains("watch-exit=0"), "\(text)")
        }
    }

    // MARK: --json read commands

    @Test func statusAndWorkersJSONFollowTheDatabase() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir, width: 640, height: 360, seconds: 8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let job = try farm.submit(
                project, output: dir.appendingPathComponent("out.mov"), chunkArguments: Self.slowChunks)
            let doneChunks = "SELECT count(*) FROM chunks WHERE job_id = $1 AND state = 'done'"
            let doneAttempts = "SELECT count(*) FROM attempts WHERE worker_id = $1 AND outcome = 'done'"
            var lastFrames: Int64 = 0
            var samples = 0
            var finished = false
            while !finished {
                let before = try Self.count(farm, doneChunks, [String(job)])
                let attemptsBefore = try ["w1", "w2"].map { try Self.count(farm, doneAttempts, [$0]) }
                let registeredBefore = try Set(
                    farm.store.connection.query("SELECT id FROM workers").map { try $0.decode("id", as: String.self) })
                let status = try #require(try farm.json([JobStatus].self, ["status"]).first { $0.id == job })
                let workers = try farm.json([WorkerStatus].self, ["workers"])
                let after = try Self.count(farm, doneChunks, [String(job)])
                let attemptsAfter = try ["w1", "w2"].map { try Self.count(farm, doneAttempts, [$0]) }

                let counts = status.chunks
                #expect(counts.queued + counts.running + counts.done + counts.failed == counts.total)
                #expect(counts.total == 13)
                #expect(status.frameCount == 240)
                #expect(
                    (before...after).contains(Int64(counts.done)),
                    "done chunks \(counts.done) outside \(before)...\(after)")
                #expect(status.framesDone >= lastFrames, "frames done went from \(lastFrames) to \(status.framesDone)")
                #expect(status.framesDone <= 240)
                lastFrames = status.framesDone

                // A worker may say hello between the reads: what was printed lies between them.
                let registeredAfter = try Set(
                    farm.store.connection.query("SELECT id FROM workers").map { try $0.decode("id", as: String.self) })
                let printed = Set(workers.map(\.id))
                #expect(
                    registeredBefore.isSubset(of: printed) && printed.isSubset(of: registeredAfter),
                    "\(registeredBefore) \(printed) \(registeredAfter)")
                #expect(workers.map(\.id) == workers.map(\.id).sorted(), "workers are listed by id")
                for worker in workers {
                    #expect([.idle, .rendering].contains(worker.state))
                    let index = worker.id == "w1" ? 0 : 1
                    #expect((attemptsBefore[index]...attemptsAfter[index]).contains(Int64(worker.chunksDone)))
                }
                samples += 1
                finished = status.isFinished
            }
            print("status/workers --json: \(samples) samples during the render, frames done rising to \(lastFrames)")
            #expect(samples >= 3, "the render ended before it could be sampled")
            let final = try #require(try farm.json([JobStatus].self, ["status"]).first { $0.id == job })
            #expect(final.state == .done)
            #expect(final.framesDone == 240)
            #expect(final.percent == 100)
            #expect(final.chunks.done == 13)
            // A finished job's text lists no chunk, and says how to see them all; --all lists all 13.
            let brief = try farm.cli(["status", String(job)]).stdout
            #expect(
                brief.contains("13 more are done or queued (farm status \(job) --all lists every chunk)"), "\(brief)")
            #expect(!brief.contains("chunk 0 "), "\(brief)")
            let every = try farm.cli(["status", String(job), "--all"]).stdout
            #expect(
                every.split(separator: "\n").filter { $0.hasPrefix("chunk ") || $0.hasPrefix("audio ") }.count == 13,
                "\(every)")
            #expect(!every.contains("more are done or queued"))
            // The audio block in its own unit: seconds of sound, never its samples as frames.
            let audioLine = every.split(separator: "\n").first { $0.hasPrefix("audio block 0 ") } ?? ""
            #expect(audioLine.contains("0.00..8.00 s") && audioLine.contains("8.0/8.0 s"), "\(every)")
            let log = try farm.cli(["logs", String(job)]).stdout
            let audioAttempt = log.split(separator: "\n").first { $0.hasPrefix("audio block 0 ") } ?? ""
            #expect(audioAttempt.contains("8.0 s of sound") && !audioAttempt.contains("384000"), "\(log)")
            #expect(log.contains(" 20 frames "), "\(log)")
            print("farm status --all, audio: \(audioLine)\nfarm logs, audio: \(audioAttempt)")
            let attempts = try farm.json([AttemptStatus].self, ["logs", String(job)])
            let audioDone = try #require(attempts.first { $0.kind == .audio && $0.outcome == .done })
            #expect(audioDone.samplesDone == 384_000 && audioDone.soundSeconds == 8, "\(audioDone)")
            #expect(audioDone.framesDone == nil && audioDone.fps == nil, "\(audioDone)")
            let workers = try farm.json([WorkerStatus].self, ["workers"])
            #expect(workers.map(\.id) == ["w1", "w2"])
            #expect(workers.map(\.chunksDone).reduce(0, +) == 13)
            #expect(workers.allSatisfy { ($0.averageFps ?? 0) > 0 })
            // `farm wait` of a done job: its summary, exit 0.
            let waited = try farm.cli(["wait", String(job)])
            #expect(waited.status == 0, "\(waited.stderr)")
            #expect(waited.stdout.contains("job \(job) done"), "\(waited.stdout)")

            // Its segments: measured by the coordinator, shown by `farm status`, pruned on request.
            let folder = farm.dataDirectory.appendingPathComponent("jobs").appendingPathComponent(String(job))
            try farm.wait("the segments to be measured", timeout: 30) {
                (try farm.json([JobStatus].self, ["status"]).first { $0.id == job }?.segmentBytes ?? 0) > 0
            }
            #expect(try farm.cli(["status"]).stdout.contains("kept for 1 finished job"))
            #expect(try farm.cli(["prune", "--older-than", "1h"]).stdout.contains("no finished job to prune"))
            let pruned = try farm.cli(["prune", "--job", String(job)])
            #expect(pruned.status == 0, "\(pruned.stderr)")
            #expect(pruned.stdout.contains("1 job to prune (\(job))"), "\(pruned.stdout)")
            try farm.wait("the segments to go", timeout: 30) { !FileManager.default.fileExists(atPath: folder.path) }
            try farm.wait("the prune to be recorded", timeout: 30) {
                try farm.json([JobStatus].self, ["status"]).first { $0.id == job }?.segmentBytes == 0
            }
            #expect(try farm.cli(["prune", "--job", String(job + 100)]).status == 3)

            // The coordinator stops: the farm says so, instead of showing workers lost.
            farm.coordinator?.stop()
            let listed = try farm.cli(["workers"])
            #expect(listed.stdout.contains("warning: no coordinator since "), "\(listed.stdout)")
            #expect(listed.stdout.contains("unknown"), "\(listed.stdout)")
            #expect(!listed.stdout.contains(" lost "), "\(listed.stdout)")

            // Every key printed is documented in docs/cli.md.
            let documentation = try String(
                contentsOf: Self.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
            for arguments in [["status"], ["status", String(job)], ["workers"], ["logs", String(job)]] {
                let printed = try farm.cli(arguments + ["--json"]).stdout
                for key in try Self.keys(in: JSONSerialization.jsonObject(with: Data(printed.utf8))) {
                    #expect(
                        documentation.contains("`\(key)`"),
                        """
                        farm \(arguments.joined(separator: " ")) --json prints `\(key)`, \
                        which docs/cli.md does not document
                        """
                    )
                }
            }
        }
    }

    /// `farm serve --keep-segments`: a finished job's segments go on their own; and with
    /// `--cache-size 0` nothing stays in the segment cache either.
    @Test func keptSegmentsGoOnTheirOwnAfterTheirTime() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir, width: 320, height: 180, seconds: 8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--keep-segments", "1s", "--cache-size", "0"])
            try farm.startWorker("w1")
            let job = try farm.submit(project, output: dir.appendingPathComponent("out.mov"), chunkArguments: [])
            #expect(try farm.finish(job).state == .done)
            let folder = farm.dataDirectory.appendingPathComponent("jobs").appendingPathComponent(String(job))
            try farm.wait("the segments to go", timeout: 30) { !FileManager.default.fileExists(atPath: folder.path) }
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mov").path))
            #expect(try farm.cli(["prune", "--job", String(job)]).stdout.contains("its segments are gone already"))
            try farm.wait("the cache emptied to its size", timeout: 30) {
                try farm.store.cacheUsage().segments == 0
            }
            let cache = farm.dataDirectory.appendingPathComponent("cache")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).isEmpty)
        }
    }

    // MARK: Control

    @Test func cancelStopsTheWorkersAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            // 480 frames in chunks of 120: the cancel lands well before the end.
            let project = try Self.heavyProject(in: dir, seconds: 16)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "120"])
            // An operator watches the job as JSON from the start; the cancel ends the watch.
            let watch = try farm.cliInBackground(["watch", String(job), "--json"])
            try farm.wait("both workers mid-chunk") {
                try Self.count(
                    farm,
                    """
                    SELECT count(DISTINCT a.worker_id) FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE c.job_id = $1 AND c.kind = 'video' AND a.outcome = 'running' AND a.frames_done > 0
                    """, [String(job)]) == 2
            }
            let cancel = try farm.cli(["cancel", String(job)])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            let cancelled = Date()
            // Idle as the workers themselves report it: their heartbeats list no chunk.
            var idleAfter: Double?
            try farm.wait("the workers to go idle", timeout: 10) {
                let busy = try Self.count(farm, "SELECT count(*) FROM workers WHERE state <> 'idle'")
                if busy == 0 { idleAfter = Date().timeIntervalSince(cancelled) }
                return busy == 0
            }
            let seconds = try #require(idleAfter)
            print("cancel: every worker idle \(String(format: "%.3f", seconds)) s after `farm cancel` returned")
            #expect(seconds < 1, "workers went idle \(seconds) s after the cancel")
            #expect(try Self.status(farm, job).job.state == .cancelled)
            #expect(
                try Self.count(
                    farm, "SELECT count(*) FROM chunks WHERE job_id = $1 AND state = 'running'", [String(job)]) == 0)
            let history = try farm.attempts(job)
            let stopped = history.filter { $0.outcome == "cancelled" }
            #expect(Set(stopped.map(\.worker)) == ["w1", "w2"], "\(history)")
            // Nothing more happens: no new attempt, no output, no temporary file.
            let attempts = try farm.attempts(job).count
            Thread.sleep(forTimeInterval: 1.5)
            #expect(try farm.attempts(job).count == attempts)
            #expect(!FileManager.default.fileExists(atPath: output.path))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("out.mov") }.isEmpty)
            #expect(farm.workers.allSatisfy { $0.output.contains("cancelled") })
            // `watch --json`: one JobDetail per line, each a change, frames never going back while
            // the job runs (a cancel drops the unfinished chunks' frames); the last line says
            // cancelled, and the watch exits 4 (cancelled).
            let watched = try watch.finish(timeout: 60)
            #expect(watched.status == 4, "\(watched.stderr)")
            #expect(try farm.cli(["wait", String(job)]).status == 4)
            let lines = watched.stdout.split(separator: "\n")
            let details = try lines.map { try JSONDecoder().decode(JobDetail.self, from: Data($0.utf8)) }
            print(
                "watch --json: \(details.count) lines, frames \(details.map(\.job.framesDone)), exit \(watched.status)")
            #expect(details.count >= 3, "\(watched.stdout)")
            #expect(details.first?.job.state == .queued || details.first?.job.state == .running)
            #expect(details.last?.job.state == .cancelled)
            #expect(
                zip(details, details.dropFirst()).allSatisfy { $0 != $1 }, "watch --json repeated an unchanged line")
            let watchedFrames = details.filter { $0.job.state != .cancelled }.map(\.job.framesDone)
            #expect(watchedFrames == watchedFrames.sorted(), "frames went back: \(watchedFrames)")
            #expect(details.contains { $0.chunks.contains { $0.state == .running && ($0.framesDone ?? 0) > 0 } })

            // A second cancel is refused with its own exit code.
            let again = try farm.cli(["cancel", String(job)])
            #expect(again.status == 5)
            #expect(again.stderr.contains("job \(job) is cancelled; there is nothing to cancel"), "\(again.stderr)")
        }
    }

    @Test func renderCancelledFromAnotherTerminalExitsFourAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.heavyProject(in: dir, seconds: 16)
            let farm = try TestFarm(directory: dir)
            let output = dir.appendingPathComponent("out.mov")
            // `farm render` runs its own coordinator and two local workers against the database.
            let render = try farm.cliInBackground([
                "render", project.path, "-o", output.path, "--workers", "2", "--chunk-frames", "120", "--data",
                dir.appendingPathComponent("render-data").path,
            ])
            var job: Int64 = 0
            try farm.wait("the render to be mid-chunk") {
                let rows = try farm.store.connection.query(
                    "SELECT c.job_id FROM attempts a JOIN chunks c ON c.id = a.chunk_id "
                        + "WHERE a.outcome = 'running' AND a.frames_done > 0"
                )
                job = try rows.first?.decode("job_id") ?? 0
                return !rows.isEmpty
            }
            let cancel = try farm.cli(["cancel", String(job)])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            let rendered = try render.finish(timeout: 60)
            print(
                "render cancelled elsewhere: exit \(rendered.status), "
                    + "last line: \(rendered.stderr.split(separator: "\n").last ?? "")"
            )
            #expect(rendered.status == 4, "\(rendered.stderr)")
            #expect(rendered.stderr.contains("job \(job) cancelled"), "\(rendered.stderr)")
            #expect(try farm.store.job(job)?.state == .cancelled)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("out.mov") }.isEmpty)
            // Its temporary workers are gone from the farm's list.
            #expect(try farm.json([WorkerStatus].self, ["workers"]).isEmpty)
        }
    }

    @Test func pauseAssignsNothingAndResumeFinishesTheSameOutput() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.heavyProject(in: dir, seconds: 8)
            let local = dir.appendingPathComponent("reference.mov")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
            let reference = try frameHashes(local)
            let referenceAudio = try audioHash(local)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            try farm.wait("two chunks done") {
                try Self.count(
                    farm, "SELECT count(*) FROM chunks WHERE job_id = $1 AND kind = 'video' AND state = 'done'",
                    [String(job)]) >= 2
            }
            #expect(try farm.cli(["pause", String(job)]).status == 0)
            let lastAttempt = try Self.lastAttempt(farm)
            // What was already assigned finishes; then nothing moves.
            try farm.wait("assigned chunks to finish") {
                try Self.count(
                    farm, "SELECT count(*) FROM chunks WHERE job_id = $1 AND state = 'running'", [String(job)]) == 0
            }
            Thread.sleep(forTimeInterval: 2)
            #expect(try Self.count(farm, "SELECT count(*) FROM attempts WHERE id > $1", [String(lastAttempt)]) == 0)
            let paused = try Self.status(farm, job).job
            #expect(paused.paused)
            #expect(!paused.isFinished)
            #expect(paused.chunks.queued > 0)
            #expect(try farm.cli(["resume", String(job)]).status == 0)
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == reference)
            #expect(try audioHash(output) == referenceAudio)
            #expect(try Self.count(farm, "SELECT count(*) FROM attempts WHERE id > $1", [String(lastAttempt)]) > 0)
        }
    }

    @Test func retryKeepsAPauseAndSaysSo() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            let job = try farm.submit(
                project, output: dir.appendingPathComponent("out.mov"), chunkArguments: ["--chunk-frames", "30"])
            for command in ["pause", "cancel"] { #expect(try farm.cli([command, String(job)]).status == 0) }
            let retried = try farm.cli(["retry", String(job)])
            #expect(retried.status == 0, "\(retried.stderr)")
            #expect(retried.stdout.contains("job \(job) queued again: 5 chunk(s) to render"), "\(retried.stdout)")
            #expect(
                retried.stdout.contains("job \(job) is paused: nothing is rendered until `farm resume \(job)`"),
                "\(retried.stdout)")
            let status = try Self.status(farm, job).job
            #expect(status.state == .queued)
            #expect(status.paused)
        }
    }

    @Test func higherPriorityJobIsAssignedFirstAndDrainStopsAWorker() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.heavyProject(in: dir, seconds: 4)
            let reference = dir.appendingPathComponent("reference.mov")
            try FarmTests.farm(["render", project.path, "-o", reference.path, "--local"])
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let low = try farm.submit(
                project, output: dir.appendingPathComponent("low.mov"), chunkArguments: ["--chunk-frames", "10"])
            let high = try farm.submit(
                project, output: dir.appendingPathComponent("high.mov"), chunkArguments: ["--chunk-frames", "10"])
            let raised = try farm.cli(["priority", String(high), "5"])
            #expect(raised.status == 0)
            #expect(raised.stdout.contains("job \(high) priority 5"))
            try farm.startWorker("w1")
            try farm.startWorker("w2")
            for job in [low, high] {
                let record = try farm.finish(job)
                #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            }
            let attemptIDs = { (job: Int64) in
                try farm.store.connection.query(
                    "SELECT a.id FROM attempts a JOIN chunks c ON c.id = a.chunk_id WHERE c.job_id = $1", [String(job)]
                ).map { try $0.decode("id", as: Int64.self) }
            }
            let highIDs = try attemptIDs(high)
            let lowIDs = try attemptIDs(low)
            #expect(highIDs.count == 13)
            #expect(
                try #require(highIDs.max()) < #require(lowIDs.min()),
                "a low-priority chunk was assigned before the last high-priority one")
            let expected = try frameHashes(reference)
            #expect(try frameHashes(dir.appendingPathComponent("high.mov")) == expected)
            #expect(try frameHashes(dir.appendingPathComponent("low.mov")) == expected)

            // Drain w1 in the middle of a third job: it takes nothing after that. (Rendered anew:
            // the segment cache holds every chunk of this project by now.)
            let third = try farm.submit(
                project, output: dir.appendingPathComponent("third.mov"),
                chunkArguments: ["--chunk-frames", "10", "--no-cache"])
            try farm.wait("w1 to render a chunk of the third job") {
                try !farm.attempts(third).filter { $0.worker == "w1" && $0.outcome == "done" }.isEmpty
            }
            #expect(try farm.cli(["workers", "drain", "w1"]).status == 0)
            let drainedAt = try Self.lastAttempt(farm)
            let record = try farm.finish(third)
            #expect(record.state == .done)
            let late = try Self.count(
                farm, "SELECT count(*) FROM attempts WHERE worker_id = 'w1' AND id > $1", [String(drainedAt)])
            #expect(late == 0, "a draining worker was given a chunk")
            let afterDrain = try Self.count(
                farm, "SELECT count(*) FROM attempts WHERE worker_id = 'w2' AND id > $1", [String(drainedAt)])
            #expect(afterDrain > 0, "the job ended before the drain, which then proves nothing")
            let w1 = try #require(try farm.json([WorkerStatus].self, ["workers"]).first { $0.id == "w1" })
            #expect(w1.state == .draining)
            #expect(w1.current.isEmpty)
            #expect(try farm.cli(["workers", "drain", "nobody"]).status == 3)
        }
    }

    @Test func retryOneChunkRendersOnlyItAndRejoinsTheSameFile() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mov")
            // `submit --watch`: the id alone on standard output, the plain view on standard error, exit 0 once done.
            let submitted = try farm.cli(["submit", project.path, "-o", output.path, "--chunk-frames", "30", "--watch"])
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let job = try #require(Int64(submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(submitted.stderr.contains("job \(job) done: \(output.path), 120 frames in "), "\(submitted.stderr)")
            #expect(try farm.store.job(job)?.state == .done)
            let frames = try frameHashes(output)
            let audio = try audioHash(output)
            let firstJoin = try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date

            let retried = try farm.cli(["retry", String(job), "--chunk", "2"])
            #expect(retried.status == 0, "\(retried.stderr)")
            try farm.wait("the job to be joined again") {
                let detail = try Self.status(farm, job)
                return detail.job.state == .done
                    && detail.chunks.first { $0.kind == .video && $0.index == 2 }?.attempt == 2
            }
            let attempts = try farm.attempts(job)
            #expect(attempts.filter { $0.kind == "video" && $0.index == 2 }.map(\.outcome) == ["done", "done"])
            #expect(attempts.filter { !($0.kind == "video" && $0.index == 2) }.allSatisfy { $0.attempt == 1 })
            #expect(attempts.count == 6)
            let secondJoin = try FileManager.default.attributesOfItem(atPath: output.path)[.modificationDate] as? Date
            #expect(secondJoin != firstJoin, "the file was not joined again")
            #expect(try frameHashes(output) == frames)
            #expect(try audioHash(output) == audio)
            let log = try farm.json([AttemptStatus].self, ["logs", String(job), "--chunk", "2"])
            #expect(log.map(\.attempt) == [1, 2])
            // The run's time and rate are the retry's: the summary says for which frames, and the
            // dashboard's rate plot spans this run, as its elapsed time does.
            let summary = try farm.cli(["wait", String(job)])
            #expect(summary.stdout.contains("120 frames (30 rendered in this run) in "), "\(summary.stdout)")
            let rerun = try Self.status(farm, job).job
            #expect(rerun.framesRendered == 30)
            let plot = try farm.store.renderRate(job: job)
            #expect(!plot.isEmpty && plot.last!.seconds <= (rerun.elapsedSeconds ?? 0) + 1, "\(plot) \(rerun)")

            // Refusals, each with its exit code and reason.
            let nothing = try farm.cli(["retry", String(job)])
            #expect(nothing.status == 5)
            #expect(nothing.stderr.contains("job \(job) is done; nothing failed"), "\(nothing.stderr)")
            #expect(try farm.cli(["retry", String(job), "--chunk", "99"]).status == 3)
            #expect(try farm.cli(["logs", String(job), "--chunk", "99"]).status == 3)
            let missing = try farm.cli(["status", "999"])
            #expect(missing.status == 3)
            #expect(missing.stderr.contains("no job 999"))

            // Segments removed since the join (as `farm render` removes them) are rendered again
            // before the next join, instead of failing it.
            let folder = dir.appendingPathComponent("data/jobs/\(job)")
            try FileManager.default.removeItem(at: folder.appendingPathComponent("segment-000000.mov"))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("audio-000000.mov"))
            #expect(try farm.cli(["retry", String(job), "--chunk", "3"]).status == 0)
            try farm.wait("the job to be joined a third time") {
                let detail = try Self.status(farm, job)
                return detail.job.state == .done
                    && detail.chunks.first { $0.kind == .video && $0.index == 3 }?.attempt == 2
            }
            let renderedAgain = try farm.attempts(job).filter { $0.attempt == 2 }.map { "\($0.kind) \($0.index)" }
            #expect(Set(renderedAgain) == ["audio 0", "video 0", "video 2", "video 3"])
            #expect(try frameHashes(output) == frames)
            #expect(try audioHash(output) == audio)
        }
    }

    /// One chunk retried on a cancelled job that left others unrendered is refused, naming
    /// the command that renders them all: reopened, the job would render every one of them.
    @Test func oneChunkOfACancelledJobIsRefusedWhileOthersAreUnrendered() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            let job = try farm.submit(
                project, output: dir.appendingPathComponent("out.mov"), chunkArguments: ["--chunk-frames", "30"])
            // No coordinator runs: the chunks stay queued.
            #expect(try farm.cli(["cancel", String(job)]).status == 0)
            let refused = try farm.cli(["retry", String(job), "--chunk", "2"])
            #expect(refused.status == 5, "\(refused.stdout)")
            #expect(
                refused.stderr.contains("`farm retry \(job)` renders them all, chunk 2 among them"), "\(refused.stderr)"
            )
            #expect(try farm.store.job(job)?.state == .cancelled)
            #expect(try farm.cli(["retry", String(job)]).status == 0)
            #expect(try farm.store.job(job)?.state == .queued)
        }
    }

    /// A cancel and a retry landing while a job is being joined: the join's result is dropped
    /// and the retried chunk renders, instead of a job marked done around a queued chunk.
    @Test func commandsDuringAJoinNeverStrandAChunk() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            let job = try farm.submit(
                project, output: dir.appendingPathComponent("out.mov"), chunkArguments: ["--chunk-frames", "30"])
            // No coordinator runs: this test plays its part through the store.
            try farm.store.connection.query(
                "UPDATE chunks SET state = 'done', attempt = 1 WHERE job_id = $1", [String(job)])
            #expect(try farm.store.markJoining(job: job))
            let refused = try farm.cli(["retry", String(job), "--chunk", "1"])
            #expect(refused.status == 5)
            #expect(refused.stderr.contains("is being joined"), "\(refused.stderr)")
            #expect(try farm.cli(["cancel", String(job)]).status == 0)
            #expect(try farm.cli(["retry", String(job), "--chunk", "1"]).status == 0)
            // The join that was running ends now: it must not mark the job done.
            #expect(try !farm.store.finish(job: job, error: nil))
            let detail = try Self.status(farm, job)
            #expect(detail.job.state == .queued)
            #expect(detail.chunks.first { $0.kind == .video && $0.index == 1 }?.state == .queued)
            // Nor may a new join start before that chunk is in again.
            #expect(try !farm.store.markJoining(job: job))
            #expect(try Self.status(farm, job).job.state == .queued)
        }
    }

    // MARK: Helpers

    /// The repository this test file is in (docs/cli.md lives there).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every object key anywhere in a JSON value.
    static func keys(in value: Any) -> Set<String> {
        if let object = value as? [String: Any] {
            return Set(object.keys).union(object.values.flatMap { keys(in: $0) })
        }
        if let array = value as? [Any] { return Set(array.flatMap { keys(in: $0) }) }
        return []
    }
}
