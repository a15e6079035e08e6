import FarmCore
import Foundation
import TestSupport
import Testing

/// `farm-worker` configured by its environment alone, as the package's unit runs it
/// (`ExecStart=/usr/bin/farm-worker`, everything in /etc/farm/worker.env).
@Suite(.serialized) struct WorkerEnvironmentTests {
    struct Worker: Decodable {
        var id: String
        var slots: Int
        var state: String
        var tags: [String]?
    }

    /// The environment without any FARM_ variable of the test runner's own.
    static func environment(_ settings: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FARM_") }.merging(settings) { $1 }
    }

    @Test func aWorkerConfiguredOnlyByItsEnvironmentJoinsAKeyedFarmAndRenders() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let (keys, allowed) = try WorkerKeyTests.keys(["coordinator", "node7"], allowing: ["node7"], in: dir)
            let local = dir.appendingPathComponent("local.mov")
            #expect(try runFarm(["render", project.path, "-o", local.path, "--local"]).status == 0)

            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: [
                "--key", keys.appendingPathComponent("coordinator.key").path, "--allowed-workers", allowed.path,
            ])
            let worker = try FarmProcess(
                "farm-worker", [], log: dir.appendingPathComponent("worker-node7.log"),
                environment: Self.environment([
                    "FARM_COORDINATOR": farm.endpoint, "FARM_MEDIA_ROOT": dir.path, "FARM_SLOTS": "2",
                    "FARM_THREADS": "1", "FARM_WORKER_ID": "node7@rack2",
                    "FARM_KEY": keys.appendingPathComponent("node7.key").path,
                    "FARM_COORDINATOR_KEY": keys.appendingPathComponent("coordinator.pub").path,
                    "FARM_SCRATCH": dir.appendingPathComponent("scratch").path, "FARM_UPLOAD_LIMIT": "500M",
                    "FARM_TAGS": "site-a, 4K",
                    // At or above this CPU's level, a cap changes nothing: the job's output equals --local.
                    "FARM_X264_LEVEL": "AVX2",
                    // Empty counts as unset, as a commented-out line in an env file leaves it.
                    "FARM_STRAY": "",
                ]))
            farm.workers.append(worker)
            try farm.wait("node7 to connect", timeout: 60) {
                try farm.json([Worker].self, ["workers"]).contains { $0.id == "node7@rack2" && $0.state != "lost" }
            }
            let joined = dir.appendingPathComponent("joined.mov")
            let job = try farm.submit(project, output: joined, chunkArguments: ["--chunk-seconds", "1"])
            #expect(try farm.finish(job).state == .done, "\(farm.logs)")
            #expect(try frameHashes(joined) == frameHashes(local))
            #expect(try audioHash(joined) == audioHash(local))
            let node = try #require(try farm.json([Worker].self, ["workers"]).first { $0.id == "node7@rack2" })
            #expect(node.slots == 2)
            #expect(node.tags == ["4k", "site-a"])
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("scratch").path))
        }
    }

    @Test func aFlagWinsOverItsVariableAndABadVariableIsNamed() throws {
        try withTemporaryDirectory { dir in
            func worker(_ arguments: [String], _ settings: [String: String]) throws -> (status: Int32, stderr: String) {
                let log = dir.appendingPathComponent("worker-\(UUID().uuidString).log")
                let process = try FarmProcess(
                    "farm-worker", arguments, log: log, environment: Self.environment(settings))
                process.process.waitUntilExit()
                return (process.process.terminationStatus, process.output)
            }
            let badSlots = try worker([], ["FARM_COORDINATOR": "tcp://127.0.0.1:9", "FARM_SLOTS": "two"])
            #expect(badSlots.status == 64)
            #expect(badSlots.stderr.contains("FARM_SLOTS must be a whole number (got two)"), "\(badSlots.stderr)")
            let badTags = try worker([], ["FARM_COORDINATOR": "tcp://127.0.0.1:9", "FARM_TAGS": "4k,gpu!"])
            #expect(badTags.status == 64)
            #expect(badTags.stderr.contains(#"FARM_TAGS: tag "gpu!" may hold only a-z, 0-9, '.', '_' and '-'"#))
            let badLevel = try worker([], ["FARM_COORDINATOR": "tcp://127.0.0.1:9", "FARM_X264_LEVEL": "AVX512"])
            #expect(badLevel.status == 64)
            #expect(
                badLevel.stderr.contains(
                    "FARM_X264_LEVEL must be one of MMX2, SSE2Fast, SSSE3, SSE4.2, AVX, "
                        + "FMA3, BMI2, AVX2 (got AVX512)"))
            let badRate = try worker([], ["FARM_COORDINATOR": "tcp://127.0.0.1:9", "FARM_UPLOAD_LIMIT": "fast"])
            #expect(badRate.status == 64)
            #expect(badRate.stderr.contains("FARM_UPLOAD_LIMIT must be a rate such as 20M (got fast)"))
            let none = try worker([], ["FARM_COORDINATOR": ""])
            #expect(none.status == 64)
            #expect(none.stderr.contains("--coordinator (or FARM_COORDINATOR) names the coordinator"))
            // The flag is used, so the variable's bad value is never read.
            let flagged = try worker(["--slots", "0"], ["FARM_COORDINATOR": "tcp://127.0.0.1:9", "FARM_SLOTS": "3"])
            #expect(flagged.status == 64)
            #expect(flagged.stderr.contains("--slots must be >= 1 (got 0)"), "\(flagged.stderr)")
            // More than the coordinator accepts from a worker is refused here, not there.
            let many = try worker([], ["FARM_COORDINATOR": "tcp://127.0.0.1:9", "FARM_SLOTS": "1025"])
            #expect(many.status == 64)
            #expect(many.stderr.contains("--slots must be at most 1024 (got 1025)"), "\(many.stderr)")
        }
    }
}
