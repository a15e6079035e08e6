import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The coordinator and the database go away mid-job and come back: the job finishes with the
/// frames of an undisturbed run, and no chunk is rendered twice.
@Suite(.serialized) struct FarmOutageTests {
    /// Every attempt of the job, checked to be one per chunk, all accepted.
    static func expectEachChunkRenderedOnce(_ farm: TestFarm, job: Int64) throws {
        let attempts = try farm.attempts(job)
        let chunks = try farm.store.connection.query("SELECT count(*) FROM chunks WHERE job_id = $1", [String(job)])
        #expect(try attempts.count == chunks[0].decode("count", as: Int.self), "\(attempts)")
        #expect(attempts.allSatisfy { $0.attempt == 1 && $0.outcome == "done" }, "\(attempts)\n\(farm.logs)")
    }

    /// Waits for the job to end and checks it ended as an undisturbed run would: done, the
    /// reference's frames, each chunk rendered once.
    static func expectFinishedUndisturbed(_ farm: TestFarm, job: Int64, output: URL, reference: [String]) throws {
        let record = try farm.finish(job)
        #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
        #expect(try frameHashes(output) == reference)
        try expectEachChunkRenderedOnce(farm, job: job)
    }

    /// Waits until the job has a video chunk rendering and `accepted` chunks accepted. (Not
    /// "with frames reported": on a fast machine a chunk renders between two progress reports.)
    static func waitMidJob(_ farm: TestFarm, job: Int64, accepted: Int) throws {
        try farm.wait("job \(job) mid-way") {
            let rows = try farm.store.connection.query(
                """
                SELECT (SELECT count(*) FROM chunks WHERE job_id = $1 AND state = 'done') AS done,
                       (SELECT count(*) FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                        WHERE c.job_id = $1 AND c.kind = 'video' AND a.outcome = 'running') AS running
                """, [String(job)])
            return try rows[0].decode("done", as: Int.self) >= accepted && rows[0].decode("running", as: Int.self) > 0
        }
    }

    @Test func restartedCoordinatorAcceptsWhatWasRenderedWhileItWasDown() throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try FarmRecoveryTests.slowProject(in: dir)
            let farm = try TestFarm(directory: dir, leaseSeconds: 3)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "60"])
            try Self.waitMidJob(farm, job: job, accepted: 0)
            farm.coordinator?.kill(SIGKILL)
            // Down for longer than a lease: the worker finishes its chunk and tries to upload it
            // into the void. The coordinator that comes back must take it, not expire it.
            Thread.sleep(forTimeInterval: farm.leaseSeconds + 3)
            try farm.startCoordinator()
            try Self.expectFinishedUndisturbed(farm, job: job, output: output, reference: reference)
            let log = try #require(farm.coordinator?.output)
            #expect(!log.contains("lease of"), "\(log)")
        }
    }

    @Test func coordinatorKilledMidUploadAcceptsTheSameAttempt() throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try FarmRecoveryTests.projectWithReference(in: dir)
            let farm = try TestFarm(directory: dir, leaseSeconds: 3)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            // A slow link, so that the kill lands in the middle of an upload.
            try farm.startWorker("w1", arguments: ["--upload-limit", "200k"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let incoming = farm.dataDirectory.appendingPathComponent("jobs/\(job)/incoming")
            // Part-way and still growing, not a whole file waiting for its verdict.
            var sizes: [String: Int64] = [:]
            try farm.wait("an upload part-way") {
                let parts = (try? FileManager.default.contentsOfDirectory(atPath: incoming.path)) ?? []
                let now = Dictionary(
                    uniqueKeysWithValues: parts.map { ($0, fileSize(incoming.appendingPathComponent($0)) ?? 0) })
                defer { sizes = now }
                return now.contains { name, size in size > (sizes[name] ?? size) && sizes[name, default: 0] > 0 }
            }
            farm.coordinator?.kill(SIGKILL)
            try farm.startCoordinator()
            try Self.expectFinishedUndisturbed(farm, job: job, output: output, reference: reference)
            // The new coordinator took the upload on from the bytes the killed one had stored.
            let log = farm.coordinator?.output ?? ""
            #expect(log.contains("resuming its upload after the"), "\(log)")
            #expect(!log.contains("resuming its upload after the 0 bytes"), "\(log)")
            #expect(!log.contains("lease of"), "\(log)")
        }
    }

    /// A restart, and an outage three leases long (leases are 5 s here): either way the job
    /// finishes undisturbed, nothing accepted rendered again.
    @Test(arguments: ["restart", "stop for 15 s"])
    func databaseOutageLosesNothing(_ outage: String) throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try FarmRecoveryTests.slowProject(in: dir)
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            try server.start()
            defer { server.stop() }
            let farm = try TestFarm(directory: dir, leaseSeconds: 5, database: server.connectionString)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let watcher = try farm.cliInBackground(["watch", String(job)])
            try Self.waitMidJob(farm, job: job, accepted: 2)
            if outage == "restart" {
                try server.restart()
            } else {
                server.stop()
                Thread.sleep(forTimeInterval: 15)
                try server.start()
            }
            try farm.store.reconnect()
            try Self.expectFinishedUndisturbed(farm, job: job, output: output, reference: reference)
            let log = farm.coordinator?.output ?? ""
            #expect(log.contains("lost the connection to the database"), "\(log.suffix(3000))")
            #expect(log.contains("the database is back after"), "\(log.suffix(3000))")
            #expect(farm.coordinator?.process.isRunning == true)
            // The watcher said so in one line and followed the job to its end.
            let watched = try watcher.finish(timeout: 60)
            #expect(watched.status == 0, "\(watched.stderr)")
            #expect(watched.stderr.contains("farm: lost the connection to the database ("), "\(watched.stderr)")
            #expect(!watched.stderr.contains("FATAL"), "\(watched.stderr)")
        }
    }

    @Test func secondCoordinatorStandsByUntilTheFirstStops() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            // The first must lead before the second starts, or the second may be first to lead.
            try farm.wait("the first coordinator to lead", timeout: 60) {
                farm.coordinator?.output.contains("coordinator listening on") == true
            }
            let standbyPort = farm.port + 1
            let standby = try FarmProcess(
                "farm",
                [
                    "serve", "--database", farm.database, "--bind", "tcp://127.0.0.1:\(standbyPort)", "--data",
                    dir.appendingPathComponent("standby-data").path, "--lease-seconds", "3", "--output-root",
                    dir.path,
                ], log: dir.appendingPathComponent("standby.log"))
            defer { standby.stop() }
            try farm.wait("the standby to say it stands by", timeout: 30) {
                standby.output.contains("another coordinator leads this farm database; standing by")
            }
            let first = try farm.submit(
                project, output: dir.appendingPathComponent("first.mov"), chunkArguments: ["--chunk-frames", "30"])
            #expect(try farm.finish(first).state == .done, "\(farm.logs)")
            try Self.expectEachChunkRenderedOnce(farm, job: first)
            #expect(!standby.output.contains("accepted"), "\(standby.output)")

            // The leader stops: the standby leads, and a worker of its own renders the next job.
            farm.coordinator?.stop()
            try farm.wait("the standby to lead", timeout: 30) {
                standby.output.contains("leading this farm database now")
            }
            try farm.startWorker("w2", coordinator: "tcp://127.0.0.1:\(standbyPort)")
            let second = try farm.submit(
                project, output: dir.appendingPathComponent("second.mov"), chunkArguments: ["--chunk-frames", "30"])
            #expect(try farm.finish(second).state == .done, "\(standby.output.suffix(3000))")
            try Self.expectEachChunkRenderedOnce(farm, job: second)
            #expect(
                try frameHashes(dir.appendingPathComponent("second.mov"))
                    == frameHashes(dir.appendingPathComponent("first.mov")))
        }
    }
}
