import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C, SIGTERM, a closed terminal or a closed output stops what a command started and leaves
/// nothing half-written.
@Suite(.serialized) struct InterruptionTests {
    static func waitFor(_ what: String, timeout: Double = 120, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            if Date() > deadline { throw TestError.failed("timed out waiting for \(what)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// `farm render` of a 16 s project on two workers of its own, once its job is running.
    static func startFarmRender(in dir: URL, data: URL) throws -> RunningProgram {
        let project = try OperatorTests.heavyProject(in: dir, seconds: 16)
        let render = try RunningProgram(
            farmProgram,
            [
                "render", project.path, "-o", dir.appendingPathComponent("out.mov").path, "--workers", "2",
                "--chunk-frames", "120", "--data", data.path,
            ])
        try waitFor("the render to run") { render.errorSoFar.contains("job 1 running") }
        return render
    }

    static func leftovers(in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("out.mov") }
    }

    /// A farm in `dir`/data with job 1 queued and no coordinator: a watch of it sees no change.
    static func queueJob(in dir: URL) throws -> URL {
        let project = try FarmTests.seamProject(in: dir)
        let data = dir.appendingPathComponent("data")
        let submitted = try runFarm([
            "submit", project.path, "-o", dir.appendingPathComponent("out.mov").path, "--data", data.path,
            "--queue-only",
        ])
        #expect(submitted.status == 0, "\(submitted.stderr)")
        return data
    }

    /// Ctrl-C on a command that started the farm's private PostgreSQL stops that server too.
    @Test func interruptedWatchStopsThePrivateServer() throws {
        try withTemporaryDirectory { dir in
            let data = try Self.queueJob(in: dir)
            let pidFile = data.appendingPathComponent("postgres/postmaster.pid")
            #expect(!FileManager.default.fileExists(atPath: pidFile.path), "submit left its private server running")

            // No coordinator runs, so the job waits and the watch goes on until interrupted.
            let watch = try RunningProgram(farmProgram, ["watch", "1", "--data", data.path])
            // The view's first line may be the warning that no coordinator has run; the job's
            // line follows it.
            try Self.waitFor("the watch view") {
                FileManager.default.fileExists(atPath: pidFile.path) && watch.outputSoFar.contains("job 1 queued")
            }
            kill(watch.pid, SIGINT)
            let result = try watch.finish(timeout: 60)
            #expect(result.status == 130, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: pidFile.path), "the private server still runs after Ctrl-C")
        }
    }

    /// `farm watch 1 | head -c 1`: the reader leaves after the view's first line, and the job
    /// never changes (no coordinator), so no later line would find the pipe closed. The watch
    /// still ends (exit 141, as for SIGPIPE) and stops the private server it started.
    @Test func aWatchWhoseReaderLeavesEndsAndStopsThePrivateServer() throws {
        try withTemporaryDirectory { dir in
            let data = try Self.queueJob(in: dir)
            let result = try run(
                "bash",
                [
                    "-c", #""$0" "$@" | head -c 1 >/dev/null; exit "${PIPESTATUS[0]}""#, farmProgram, "watch", "1",
                    "--data", data.path,
                ], timeout: 60)
            #expect(result.status == 141, "\(result.stderr)")
            #expect(
                !FileManager.default.fileExists(atPath: data.appendingPathComponent("postgres/postmaster.pid").path))
        }
    }

    /// `farm render` on a farm of its own, interrupted mid-chunk by Ctrl-C or by its terminal
    /// closing (SIGHUP): the job is cancelled, the workers, coordinator and private PostgreSQL
    /// are stopped, and no file is left.
    @Test(arguments: [(SIGINT, "Ctrl-C"), (SIGHUP, "the terminal closed")])
    func interruptedFarmRenderStopsEverythingAndWritesNothing(_ signal: Int32, _ cause: String) throws {
        try withTemporaryDirectory { dir in
            let data = dir.appendingPathComponent("data")
            let render = try Self.startFarmRender(in: dir, data: data)
            Thread.sleep(forTimeInterval: 0.5)
            kill(render.pid, signal)
            let result = try render.finish(timeout: 60)
            print(
                "render interrupted: exit \(result.status), "
                    + "last line: \(result.stderr.split(separator: "\n").last ?? "")"
            )
            #expect(result.status == 128 + signal, "\(result.stderr)")
            #expect(result.stderr.hasSuffix("out.mov: interrupted (\(cause)); nothing written\n"), "\(result.stderr)")
            #expect(!result.stderr.contains("rendering failed"), "\(result.stderr)")
            try Self.expectStopped(data: data, dir: dir)
        }
    }

    /// `farm render … | head`: the reader leaves, and the render's next line finds its output
    /// closed. It stops as if interrupted, exiting 141 as for SIGPIPE, after its clean-up: by
    /// default the signal (or Foundation's trap on the failed write) would kill it first, leaving
    /// its private PostgreSQL running.
    @Test func aFarmRenderWhoseOutputClosesStopsEverythingAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let data = dir.appendingPathComponent("data")
            let project = try OperatorTests.heavyProject(in: dir, seconds: 16)
            let result = try run(
                "bash",
                [
                    "-c", #""$0" "$@" 2>&1 | head -c 1 >/dev/null; exit "${PIPESTATUS[0]}""#, farmProgram,
                    "render", project.path, "-o", dir.appendingPathComponent("out.mov").path, "--workers", "2",
                    "--chunk-frames", "120", "--data", data.path,
                ])
            #expect(result.status == 141, "\(result.stderr)")
            try Self.expectStopped(data: data, dir: dir)
        }
    }

    /// No file written, no process of the farm in `data` running, its job cancelled.
    static func expectStopped(data: URL, dir: URL) throws {
        #expect(try leftovers(in: dir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("postgres/postmaster.pid").path))
        // `pg_ctl stop` returns once the server removed its pid file, a moment before its last
        // process exits: what is left must end within seconds, not run on.
        var running = ""
        do {
            try waitFor("the farm's processes to end", timeout: 10) {
                running = try run("pgrep", ["-af", data.path]).stdout
                return running.isEmpty
            }
        } catch {
            Issue.record("processes of this farm still run: \(running)")
        }
        let status = try runFarm(["status", "1", "--json", "--data", data.path])
        let detail = try JSONDecoder().decode(JobDetail.self, from: Data(status.stdout.utf8))
        #expect(detail.job.state == .cancelled)
    }

    /// `farm render` killed outright (no clean-up of its own): its workers end with it instead
    /// of rendering for nobody.
    @Test func aKilledFarmRenderLeavesNoWorkerRunning() throws {
        try withTemporaryDirectory { dir in
            let data = dir.appendingPathComponent("data")
            let render = try Self.startFarmRender(in: dir, data: data)
            let workers = { try run("pgrep", ["-f", "farm-worker.*\(data.path)"]).stdout }
            #expect(try !workers().isEmpty, "the render's workers should be running")
            kill(render.pid, SIGKILL)
            _ = try render.finish(timeout: 60)
            try Self.waitFor("the workers to stop", timeout: 30) { try workers().isEmpty }
            // The server it started outlives it, as after any crash; the next command uses it.
            // This test stops it.
            let pidFile = data.appendingPathComponent("postgres/postmaster.pid")
            if let text = try? String(contentsOf: pidFile, encoding: .utf8),
                let pid = Int32(text.split(separator: "\n").first ?? "")
            {
                kill(pid, SIGINT)
                try Self.waitFor("the server to stop") { !FileManager.default.fileExists(atPath: pidFile.path) }
            }
        }
    }

    /// `farm render --local`, interrupted: its temporary file is removed.
    @Test func interruptedLocalRenderWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let project = try OperatorTests.heavyProject(in: dir, seconds: 16)
            let render = try RunningProgram(
                farmProgram, ["render", project.path, "-o", dir.appendingPathComponent("out.mov").path, "--local"])
            try Self.waitFor("the temporary file") { try !Self.leftovers(in: dir).isEmpty }
            Thread.sleep(forTimeInterval: 0.5)
            kill(render.pid, SIGTERM)
            let result = try render.finish(timeout: 60)
            #expect(result.status == 143, "\(result.stderr)")
            #expect(result.stderr.hasSuffix("out.mov: interrupted (signal 15); nothing written\n"), "\(result.stderr)")
            #expect(try Self.leftovers(in: dir).isEmpty)
        }
    }
}
