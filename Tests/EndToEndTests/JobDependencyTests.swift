import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm submit --after JOB`: a job none of whose chunks is handed out before the jobs it waits
/// on are done, which fails when one of them fails or is cancelled (and so down a chain).
@Suite struct JobDependencyTests {
    @Test func aJobStartsOnlyOnceTheJobsItWaitsOnAreDoneAndFailsWithThem() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            // No worker yet: the first job stays queued while the others are submitted.
            let first = try farm.submit(project, output: dir.appendingPathComponent("1.mov"), chunkArguments: [])
            let second = try farm.submit(
                project, output: dir.appendingPathComponent("2.mov"),
                chunkArguments: ["--after", String(first), "--no-cache"])
            let third = try farm.submit(
                project, output: dir.appendingPathComponent("3.mov"),
                chunkArguments: ["--after", String(second), "--no-cache"])
            let waiting = try OperatorTests.status(farm, second).job
            #expect(waiting.waitsOn == [first])
            #expect(waiting.waitingFor == "job \(first) to finish (--after)", "\(waiting)")
            #expect(try farm.cli(["status"]).stdout.contains("job \(first) to finish (--after)"))
            try farm.startWorker("w1")
            #expect(try farm.finish(third).state == .done)
            // Each rendered (no chunk from the cache) only after the one before it had ended.
            let order = try farm.store.connection.query(
                """
                SELECT bool_and(a.started_at >= d.finished_at) AS after_it, count(*) AS attempts
                FROM jobs j JOIN chunks c ON c.job_id = j.id JOIN attempts a ON a.chunk_id = c.id
                JOIN jobs d ON d.id = j.id - 1 WHERE j.id IN ($1, $2) AND a.outcome = 'done'
                """, [String(second), String(third)])[0]
            #expect(try order.decode("attempts", as: Int64.self) >= 4)
            #expect(try order.decode("after_it", as: Bool.self))
            #expect(try OperatorTests.status(farm, third).job.waitsOn.isEmpty)

            // A job waiting on one that is cancelled fails, and so does the next in the chain.
            // No worker has the tag it needs: it stays queued until cancelled.
            let fourth = try farm.submit(
                project, output: dir.appendingPathComponent("4.mov"), chunkArguments: ["--requires", "gpu"])
            let fifth = try farm.submit(
                project, output: dir.appendingPathComponent("5.mov"), chunkArguments: ["--after", String(fourth)])
            let sixth = try farm.submit(
                project, output: dir.appendingPathComponent("6.mov"), chunkArguments: ["--after", String(fifth)])
            #expect(try farm.cli(["cancel", String(fourth)]).status == 0)
            let failed = try farm.store.job(fifth)
            #expect(failed?.state == .failed)
            #expect(failed?.error == "job \(fourth), which it waits on (--after), cancelled")
            #expect(try farm.store.job(sixth)?.error == "job \(fifth), which it waits on (--after), failed")
            // Waiting on a job that failed, or on none, is refused.
            let refused = try farm.cli([
                "submit", project.path, "-o", dir.appendingPathComponent("7.mov").path,
                "--after", String(fifth),
            ])
            #expect(refused.status == 5)
            #expect(
                refused.stderr.contains(
                    "job \(fifth) is failed: a job waiting on it (--after \(fifth)) would never start"),
                "\(refused.stderr)")
            let unknown = try farm.cli([
                "submit", project.path, "-o", dir.appendingPathComponent("7.mov").path,
                "--after", "999",
            ])
            #expect(unknown.status == 3, "\(unknown.stderr)")

            // Every chunk from the cache: still not joined before the job it waits on is done.
            let tagged = try farm.submit(
                project, output: dir.appendingPathComponent("9.mov"),
                chunkArguments: ["--requires", "gpu", "--no-cache"])
            let cached = try farm.submit(
                project, output: dir.appendingPathComponent("10.mov"), chunkArguments: ["--after", String(tagged)])
            Thread.sleep(forTimeInterval: 2)
            #expect(try farm.store.job(cached)?.state == .queued, "joined before the job it waits on")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("10.mov").path))
            try farm.startWorker("gpu1", arguments: ["--tags", "gpu"])
            #expect(try farm.finish(cached).state == .done)
            let ends = try farm.store.connection.query(
                "SELECT (SELECT finished_at FROM jobs WHERE id = $1) <= (SELECT finished_at FROM jobs WHERE id = $2) "
                    + "AS ok",
                [String(tagged), String(cached)])[0]
            #expect(try ends.decode("ok", as: Bool.self))
        }
    }
}
