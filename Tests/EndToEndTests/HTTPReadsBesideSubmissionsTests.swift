import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm serve --http` answers token checks and reads while a submission is in flight: this test
/// holds the submission's insert with a lock on `jobs` of its own, and a read answers before the
/// submission does. (With one connection for every call, the read waited behind the insert.)
@Suite struct HTTPReadsBesideSubmissionsTests {
    @Test func aReadAnswersWhileASubmissionWaitsOnTheDatabase() throws {
        try withTemporaryDirectory { dir in
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            let projectFile = try FarmTests.seamProject(in: media, width: 320, height: 180, seconds: 4)
            let project = try String(contentsOf: projectFile, encoding: .utf8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0", "--media-root", media.path])
            let base = try HTTPAPITests.baseURL(of: farm)
            let token = { (role: String) in
                try farm.cli(["tokens", "create", role, "--role", role]).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let (submitter, reader) = (try token("submit"), try token("read"))

            // A SHARE lock lets every read of `jobs` through and holds every insert into it.
            let holder = try FarmStore(url: farm.database)
            try holder.connection.query("BEGIN")
            try holder.connection.query("LOCK TABLE jobs IN SHARE MODE")
            let output = dir.appendingPathComponent("out.mov").path
            let submitting = try RunningProgram(
                "/usr/bin/curl",
                [
                    "-s", "--max-time", "300", "-w", "\n%{http_code}", "-X", "POST", "\(base)/api/jobs",
                    "-H", "Authorization: Bearer \(submitter)", "-H", "Content-Type: application/json",
                    "-d", #"{"project": \#(project), "output": "\#(output)"}"#,
                ])
            // Its media probed and its chunks keyed, the submission waits on the lock to insert.
            try farm.wait("the submission's insert to wait on the lock", timeout: 120) {
                try holder.connection.query(
                    "SELECT count(*) AS waiting FROM pg_locks WHERE relation = 'jobs'::regclass AND NOT granted"
                )[0].decode("waiting", as: Int64.self) == 1
            }
            func call(_ path: String) throws -> (status: String, body: String) {
                // --max-time: a read stuck behind the submission fails here rather than hangs.
                let result = try run(
                    "/usr/bin/curl",
                    [
                        "-s", "--max-time", "60", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(reader)",
                        base + path,
                    ])
                var lines = result.stdout.components(separatedBy: "\n")
                let status = lines.removeLast()
                return (status, lines.joined(separator: "\n"))
            }
            let listed = try call("/api/jobs")
            #expect(listed.status == "200" && listed.body == "[]", "\(listed)")
            let summary = try call("/api/farm")
            #expect(summary.status == "200" && summary.body.contains("\"coordinatorServing\""), "\(summary)")
            #expect(submitting.outputSoFar.isEmpty, "the submission has not answered: the lock still holds it")

            try holder.connection.query("ROLLBACK")
            let submitted = try submitting.finish(timeout: 300)
            var lines = submitted.stdout.components(separatedBy: "\n")
            #expect(lines.removeLast() == "201", "\(submitted.stdout)")
            let job = try JSONDecoder().decode(JobStatus.self, from: Data(lines.joined(separator: "\n").utf8))
            let after = try JSONDecoder().decode([JobStatus].self, from: Data(call("/api/jobs").body.utf8))
            #expect(after.map(\.id) == [job.id])
        }
    }
}
