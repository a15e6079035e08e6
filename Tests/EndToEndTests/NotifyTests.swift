import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm submit --notify URL`: a receiver on loopback (Tests/Scripts/notify_receiver.py) hears of
/// each job once when it ends, signed with the farm's secret, and a receiver that refuses at
/// first is tried again.
@Suite struct NotifyTests {
    struct Delivery: Decodable {
        var path: String
        var job: String?
        var delivery: String?
        var agent: String?
        var status: Int
        var valid: Bool
        var body: JobStatus
    }

    /// Starts Tests/Scripts/notify_receiver.py; returns it, its base URL and its log.
    static func startReceiver(in dir: URL, secret: String, farm: TestFarm) throws -> (RunningProgram, String, URL) {
        let log = dir.appendingPathComponent("notices.jsonl")
        let portFile = dir.appendingPathComponent("port")
        let receiver = try RunningProgram(
            OTIOOracleTests.python,
            [
                DashboardBrowserTests.repository.appendingPathComponent("Tests/Scripts/notify_receiver.py").path,
                "--secret", secret, "--log", log.path, "--port-file", portFile.path,
            ])
        do {
            try farm.wait("the receiver to listen", timeout: 30) {
                FileManager.default.fileExists(atPath: portFile.path)
            }
        } catch {
            kill(receiver.pid, SIGKILL)
            throw error
        }
        return (receiver, "http://127.0.0.1:\(try String(contentsOf: portFile, encoding: .utf8))", log)
    }

    @Test func eachEndedJobIsToldOnceSignedAndRetried() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            let secret = try farm.cli(["tokens", "notify-secret"]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            #expect(secret.count == 64 && secret.allSatisfy(\.isHexDigit), "\(secret)")
            let (receiver, base, log) = try Self.startReceiver(in: dir, secret: secret, farm: farm)
            defer { kill(receiver.pid, SIGKILL) }

            func submit(_ name: String, notify: String, options: [String] = []) throws -> Int64 {
                let result = try farm.cli(
                    [
                        "submit", project.path, "-o", dir.appendingPathComponent("\(name).mov").path, "--notify",
                        notify,
                    ] + options)
                #expect(result.status == 0, "\(result.stderr)")
                return Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            }
            let done = try submit("done", notify: "\(base)/hook/done")
            let flaky = try submit("flaky", notify: "\(base)/flaky")
            #expect(try farm.finish(done).state == .done)
            #expect(try farm.finish(flaky).state == .done)
            // With no worker left, this one is cancelled while queued. Not from the segment
            // cache: the same timeline's chunks are all there, and the job would be joined
            // and done before the cancel came.
            for worker in farm.workers { worker.stop() }
            let cancelled = try submit("cancelled", notify: "\(base)/hook/cancelled", options: ["--no-cache"])
            #expect(try farm.cli(["cancel", String(cancelled)]).status == 0)

            // Told, then nothing more: the farm records each delivery.
            try farm.wait("every notice delivered", timeout: 60) {
                try farm.store.connection.query(
                    "SELECT count(*) FROM jobs WHERE notified_at IS NOT NULL")[0].decode("count", as: Int64.self) == 3
            }
            Thread.sleep(forTimeInterval: 3)
            let deliveries = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map {
                try JSONDecoder().decode(Delivery.self, from: Data($0.utf8))
            }
            #expect(deliveries.filter { !$0.valid }.isEmpty, "every notice signed with the farm's secret")
            #expect(deliveries.filter { $0.path == "/hook/done" }.map(\.status) == [200])
            #expect(deliveries.filter { $0.path == "/hook/cancelled" }.map(\.status) == [200])
            #expect(deliveries.filter { $0.path == "/flaky" }.map(\.status) == [503, 200], "refused once, tried again")
            #expect(deliveries.filter { $0.path == "/flaky" }.map(\.delivery) == ["\(flaky).1", "\(flaky).2"])
            let told = Dictionary(deliveries.filter { $0.status == 200 }.map { ($0.body.id, $0.body) }) { a, _ in a }
            #expect(told[done]?.state == .done && told[done]?.percent == 100)
            #expect(told[cancelled]?.state == .cancelled)
            #expect(deliveries.allSatisfy { $0.job == String($0.body.id) })
            // The sender names its release, as `farm --version` does.
            #expect(deliveries.allSatisfy { $0.agent == "farm/\(FarmVersion.current)" })

            // A URL that is not one is refused before anything is queued.
            let bad = try farm.cli([
                "submit", project.path, "-o", dir.appendingPathComponent("x.mov").path, "--notify", "ftp://x",
            ])
            #expect(
                bad.status == 64 && bad.stderr.contains("--notify \"ftp://x\" is not an http:// or https:// URL"),
                "\(bad.stderr)")
        }
    }

    /// `farm serve --notify-allow`: a notice to an address outside the list is never sent (nor
    /// tried again), and a receiver's redirect is not followed.
    @Test func noticesGoOnlyWhereTheFarmAllows() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--notify-allow", "127.0.0.0/8, ::1"])
            let secret = try farm.cli(["tokens", "notify-secret"]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            let (receiver, base, log) = try Self.startReceiver(in: dir, secret: secret, farm: farm)
            defer { kill(receiver.pid, SIGKILL) }
            func submitAndCancel(_ name: String, notify: String) throws -> Int64 {
                let result = try farm.cli([
                    "submit", project.path, "-o", dir.appendingPathComponent("\(name).mov").path, "--notify", notify,
                ])
                let job = try #require(Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
                #expect(try farm.cli(["cancel", String(job)]).status == 0)
                return job
            }
            // Where cloud machines' metadata answers: outside the list.
            let metadata = try submitAndCancel("metadata", notify: "http://169.254.169.254/latest/meta-data")
            let redirected = try submitAndCancel("redirected", notify: "\(base)/redirect")
            let notice = { (job: Int64) in
                let row = try farm.store.connection.query(
                    "SELECT notify_attempts, notify_error, notify_next_at IS NULL AS given_up FROM jobs WHERE id = $1",
                    [String(job)])[0]
                return (
                    attempts: try row.decode("notify_attempts", as: Int.self),
                    error: try row.decode("notify_error", as: String?.self),
                    givenUp: try row.decode("given_up", as: Bool.self)
                )
            }
            try farm.wait("both notices tried", timeout: 30) {
                try notice(metadata).attempts >= 1 && notice(redirected).attempts >= 1
            }
            let refused = try notice(metadata)
            #expect(refused.attempts == 1 && refused.givenUp, "never tried again")
            #expect(refused.error == "169.254.169.254 is 169.254.169.254, outside --notify-allow", "\(refused)")
            #expect(try notice(redirected).error == "HTTP 302")
            Thread.sleep(forTimeInterval: 1)
            let requests = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(requests.allSatisfy { $0["path"] as? String == "/redirect" }, "\(requests)")
            #expect(try notice(metadata).attempts == 1)
        }
    }
}
