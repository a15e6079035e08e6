import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm serve --http`: every call through the API has the CLI's effect in the database, and
/// nothing but /healthz answers without a token of the right role.
@Suite struct HTTPAPITests {
    /// `curl` against the API: the body and the HTTP status.
    struct Answer {
        var status: Int
        var body: String
    }

    static func call(
        _ method: String, _ url: String, token: String? = nil, body: String? = nil, headers: [String] = [],
        file: URL? = nil
    ) throws -> Answer {
        var arguments = ["-s", "-X", method, "-w", "\n%{http_code}", url]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["-H", "Content-Type: application/json", "-d", body] }
        // A file's bytes as they are (an upload).
        if let file { arguments += ["--data-binary", "@\(file.path)"] }
        let result = try run("/usr/bin/curl", arguments)
        var lines = result.stdout.components(separatedBy: "\n")
        let status = Int(lines.removeLast()) ?? 0
        return Answer(status: status, body: lines.joined(separator: "\n"))
    }

    /// Logs in as the dashboard does: the session id of the `Set-Cookie` answer.
    static func openSession(_ base: String, token: String) throws -> String? {
        let result = try run(
            "/usr/bin/curl",
            [
                "-s", "-D", "-", "-o", "/dev/null", "-X", "POST", "\(base)/api/session",
                "-H", "Content-Type: application/json", "-d", #"{"token": "\#(token)"}"#,
            ])
        let line = result.stdout.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
        return line.flatMap { $0.firstMatch(of: #/farm_session=([^;]+);/#) }.map { String($0.1) }
    }

    @Test func everyCallHasTheCLIsEffectAndNeedsItsRole() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir, width: 320, height: 180, seconds: 8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0"])
            let base = try Self.baseURL(of: farm)
            #expect(
                try Self.call("GET", "\(base)/healthz").body.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
            let reader = try farm.cli(["tokens", "create", "dashboard", "--role", "read"])
            #expect(reader.status == 0, "\(reader.stderr)")
            let read = reader.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(read.hasPrefix("farm_") && read.count == 69)
            let operate = try farm.cli(["tokens", "create", "ops", "--role", "operate"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try farm.cli(["tokens", "create", "ops", "--role", "read"]).status == 5, "a name is taken once")

            // No job runs yet: no worker. Submitted by the CLI, read through the API.
            let job = try farm.submit(project, output: dir.appendingPathComponent("out.mov"), chunkArguments: [])
            #expect(try Self.call("GET", "\(base)/api/jobs").status == 401)
            #expect(try Self.call("GET", "\(base)/api/jobs", token: "farm_nonsense").status == 401)
            let listed = try Self.call("GET", "\(base)/api/jobs", token: read)
            #expect(listed.status == 200)
            let jobs = try JSONDecoder().decode([JobStatus].self, from: Data(listed.body.utf8))
            #expect(jobs.map(\.id) == [job] && jobs.first?.state == .queued)
            #expect(try Self.call("GET", "\(base)/api/jobs/\(job)", token: read).body.contains("\"chunks\""))
            #expect(try Self.call("GET", "\(base)/api/jobs/\(job + 100)", token: read).status == 404)
            #expect(try Self.call("GET", "\(base)/api/jobs/x", token: read).status == 400)
            #expect(try Self.call("GET", "\(base)/api/jobs/\(job)/attempts", token: read).body == "[]")
            let noReport = try Self.call("GET", "\(base)/api/jobs/\(job)/qc", token: read)
            #expect(noReport.status == 404 && noReport.body.contains("has no QC report yet"), "\(noReport.body)")
            #expect(try Self.call("GET", "\(base)/api/farm", token: read).body.contains("\"coordinatorServing\":true"))

            // Control: a read token is refused; an operate token changes what the CLI changes.
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/pause", token: read).status == 403)
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/cancel", token: read).status == 403)
            #expect(try farm.store.job(job)?.state == .queued, "a read token cannot cancel")
            // The dashboard's session: its cookie holds a session id, never the token, and a
            // token put in the cookie is no session.
            let browser = try farm.cli(["tokens", "create", "browser", "--role", "operate"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try Self.openSession(base, token: "farm_wrong") == nil)
            // Another site cannot sign a browser in (with a token of its choosing).
            let foreignLogin = try Self.call(
                "POST", "\(base)/api/session", body: #"{"token": "\#(browser)"}"#,
                headers: ["Origin: http://127.0.0.1:1"])
            #expect(
                foreignLogin.status == 403 && foreignLogin.body.contains("dashboard's page"), "\(foreignLogin.body)")
            let session = try #require(try Self.openSession(base, token: browser))
            #expect(session.hasPrefix("session_") && !session.contains(browser))
            let host = String(base.dropFirst("http://".count))
            func pause(cookie: String, origin: String) throws -> Answer {
                try Self.call(
                    "POST", "\(base)/api/jobs/\(job)/pause", headers: ["Cookie: \(cookie)", "Origin: \(origin)"])
            }
            #expect(try pause(cookie: "farm_session=\(browser)", origin: "http://\(host)").status == 401)
            // It changes nothing for a page of another origin.
            let foreign = try pause(cookie: "farm_session=\(session)", origin: "http://127.0.0.1:1")
            #expect(foreign.status == 403 && foreign.body.contains("dashboard's page"), "\(foreign.body)")
            #expect(try farm.store.job(job)?.paused == false)
            let own = try pause(cookie: "farm_session=\(session)", origin: "http://\(host)")
            #expect(own.status == 200, "\(own.body)")
            #expect(try farm.store.job(job)?.paused == true)
            // Logging out ends it for good; so does revoking its token.
            let reading = { (cookie: String) in
                try Self.call("GET", "\(base)/api/jobs", headers: ["Cookie: farm_session=\(cookie)"]).status
            }
            #expect(try reading(session) == 200)
            // The page asks its session's role, to show only the buttons it may use.
            let asked = try Self.call("GET", "\(base)/api/session", headers: ["Cookie: farm_session=\(session)"])
            #expect(asked.status == 200 && asked.body == #"{"role":"operate"}"#, "\(asked.body)")
            #expect(try Self.call("GET", "\(base)/api/session", token: read).body == #"{"role":"read"}"#)
            #expect(try Self.call("GET", "\(base)/api/session").status == 401)
            // A live-update stream opened with the session ends once it is logged out (curl's
            // exit 0: the server closed it; 28 would be its own time limit).
            let stream = try RunningProgram(
                "/usr/bin/curl",
                ["-s", "-N", "--max-time", "60", "-H", "Cookie: farm_session=\(session)", "\(base)/api/events"])
            try farm.wait("the stream to open") { stream.outputSoFar.contains("event: hello") }
            _ = try Self.call("DELETE", "\(base)/api/session", headers: ["Cookie: farm_session=\(session)"])
            let streamed = try stream.finish(timeout: 90)
            #expect(streamed.status == 0, "\(streamed.status): \(streamed.stdout)")
            let ended = try Self.call("GET", "\(base)/api/jobs", headers: ["Cookie: farm_session=\(session)"])
            #expect(ended.status == 401 && ended.body.contains("session has ended"), "\(ended.body)")
            let another = try #require(try Self.openSession(base, token: browser))
            #expect(try reading(another) == 200)
            #expect(try farm.cli(["tokens", "revoke", "browser"]).status == 0)
            #expect(try reading(another) == 401)
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/resume", token: operate).status == 200)
            #expect(try farm.store.job(job)?.paused == false)
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/pause", token: operate).status == 200)
            #expect(try farm.store.job(job)?.paused == true)
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/resume", token: operate).status == 200)
            #expect(try farm.store.job(job)?.paused == false)
            let priority = try Self.call(
                "PUT", "\(base)/api/jobs/\(job)/priority", token: operate, body: #"{"priority": 7}"#)
            #expect(priority.status == 200, "\(priority.body)")
            #expect(try farm.store.job(job)?.priority == 7)
            let bad = try Self.call(
                "PUT", "\(base)/api/jobs/\(job)/priority", token: operate, body: #"{"priority": "high"}"#)
            #expect(bad.status == 400 && bad.body.contains(#""path":"priority""#), "\(bad.body)")
            let missing = try Self.call("PUT", "\(base)/api/jobs/\(job)/priority", token: operate, body: "{}")
            #expect(missing.status == 400 && missing.body.contains(#""path":"priority""#), "\(missing.body)")
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/cancel", token: operate).status == 200)
            #expect(try farm.store.job(job)?.state == .cancelled)
            let again = try Self.call("POST", "\(base)/api/jobs/\(job)/cancel", token: operate)
            #expect(again.status == 409, "a finished job cannot be cancelled, as `farm cancel` exits 5")
            #expect(try Self.call("POST", "\(base)/api/jobs/\(job)/retry", token: operate).status == 200)
            #expect(try farm.store.job(job)?.state == .queued)

            // A worker joins with a keyed worker's kind of id (NAME@HOST); drained through the
            // API as `farm workers drain` does, its id percent-encoded in the path as the
            // dashboard's encodeURIComponent writes it.
            try farm.startWorker("w1@vm")
            try farm.wait("w1@vm to join", timeout: 30) {
                try farm.store.connection.query("SELECT 1 FROM workers WHERE id = 'w1@vm'").count == 1
            }
            let drained = try Self.call("POST", "\(base)/api/workers/w1%40vm/drain", token: operate)
            #expect(drained.status == 200 && drained.body.contains("w1@vm"), "\(drained.body)")
            #expect(
                try farm.store.connection.query("SELECT draining FROM workers WHERE id = 'w1@vm'").first?.decode(
                    "draining", as: Bool.self) == true)
            // Its name alone is not its id; both ways say which id was meant.
            let nameAlone = try Self.call("POST", "\(base)/api/workers/w1/drain", token: operate)
            #expect(nameAlone.status == 404 && nameAlone.body.contains("did you mean w1@vm?"), "\(nameAlone.body)")
            let cliNameAlone = try farm.cli(["workers", "drain", "w1"])
            #expect(cliNameAlone.status == 3 && cliNameAlone.stderr.contains("did you mean w1@vm?"), "\(cliNameAlone)")
            let workerAttempts = try Self.call("GET", "\(base)/api/workers/w1%40vm/attempts", token: read)
            #expect(workerAttempts.status == 200, "\(workerAttempts.body)")
            #expect(try Self.call("POST", "\(base)/api/workers/w1%40vm/undrain", token: operate).status == 200)
            #expect(try farm.finish(job).state == .done)
            // The QC report, as `farm qc --json` gives it.
            let qc = try Self.call("GET", "\(base)/api/jobs/\(job)/qc", token: read)
            #expect(qc.status == 200, "\(qc.body)")
            let report = try JSONDecoder().decode(QCReport.self, from: Data(qc.body.utf8))
            #expect(report.path == dir.appendingPathComponent("out.mov").path && report.video?.frames == 240)
            #expect(report.seams.checked > 0 && report.seams.broken.isEmpty && report.target == nil)
            let printed = try farm.cli(["qc", String(job), "--json"])
            #expect(try JSONDecoder().decode(QCReport.self, from: Data(printed.stdout.utf8)) == report)
            // Its trace, as `farm trace --json` gives it: every accepted attempt traced.
            struct TraceAnswer: Decodable {
                var trace: JobTrace
                var summary: JobTrace.Summary
            }
            let traced = try Self.call("GET", "\(base)/api/jobs/\(job)/trace", token: read)
            #expect(traced.status == 200, "\(traced.body)")
            let answer = try JSONDecoder().decode(TraceAnswer.self, from: Data(traced.body.utf8))
            let done = answer.trace.attempts.filter { $0.outcome == "done" }
            #expect(!done.isEmpty && answer.summary.attemptsTraced == done.count, "\(answer.trace)")
            #expect(answer.summary.slots.contains { $0.worker == "w1@vm" })
            #expect(try Self.call("GET", "\(base)/api/jobs/999/trace", token: read).status == 404)
            // What the accepted results weigh, before they are pruned below.
            let folder = farm.dataDirectory.appendingPathComponent("jobs/\(job)")
            let results = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasPrefix("segment-") || $0.hasPrefix("audio-")
            }
            let resultBytes = results.compactMap { fileSize(folder.appendingPathComponent($0)) }.reduce(0, +)
            #expect(results.count == 5 && resultBytes > 0, "\(results)")
            // A worker's history: its newest attempts over every job, each naming its job.
            let history = try Self.call("GET", "\(base)/api/workers/w1%40vm/attempts?limit=3", token: read)
            let attempts = try JSONDecoder().decode([AttemptStatus].self, from: Data(history.body.utf8))
            #expect(
                attempts.count == 3 && attempts.allSatisfy { $0.job == job && $0.worker == "w1@vm" }, "\(history.body)")
            #expect(try Self.call("GET", "\(base)/api/workers/nobody/attempts", token: read).status == 404)
            #expect(try Self.call("GET", "\(base)/api/workers/w1/attempts?limit=0", token: read).status == 400)
            let workers = try Self.call("GET", "\(base)/api/workers", token: read)
            #expect(try JSONDecoder().decode([WorkerStatus].self, from: Data(workers.body.utf8)).map(\.id) == ["w1@vm"])
            let pruned = try Self.call("POST", "\(base)/api/prune", token: operate, body: #"{"job": \#(job)}"#)
            #expect(pruned.status == 200 && pruned.body.contains(#""job":\#(job)"#), "\(pruned.body)")

            // /metrics: Prometheus's own parser reads it, and its numbers are the database's.
            #expect(try Self.call("GET", "\(base)/metrics").status == 401)
            let scraped = try Self.call("GET", "\(base)/metrics", token: read)
            #expect(scraped.status == 200)
            let samples = try Self.parseMetrics(scraped.body)
            let chunksDone = try farm.store.connection.query("SELECT count(*) FROM chunks WHERE state = 'done'")[0]
                .decode("count", as: Int64.self)
            #expect(samples["farm_frames_rendered_total"] == 240, "\(samples)")
            #expect(samples[#"farm_chunks{state="done"}"#] == Double(chunksDone), "\(samples)")
            #expect(samples[#"farm_jobs{state="done"}"#] == 1 && samples[#"farm_jobs{state="queued"}"#] == 0)
            #expect(samples["farm_coordinator_up"] == 1)
            let workersCounted = samples.filter { $0.key.hasPrefix("farm_workers{") }.values.reduce(0, +)
            #expect(workersCounted == 1, "\(samples)")
            // A speed now, not a lifetime average: the job is done and w1 idle.
            #expect(samples[#"farm_worker_fps{worker="w1@vm"}"#] == 0)
            // The counters and histograms kept in the database, against what happened.
            // Each query's one column is named `total`.
            let sql = { (query: String) in try farm.store.connection.query(query)[0].decode("total", as: Double.self) }
            let accepted = try sql("SELECT count(*) AS total FROM attempts WHERE outcome = 'done'")
            #expect(samples["farm_upload_bytes_total"] == Double(resultBytes), "\(samples)")
            #expect(
                samples["farm_samples_rendered_total"]
                    == (try sql("SELECT sum(end_sample - start_sample) AS total FROM chunks WHERE kind = 'audio'")))
            #expect(samples["farm_samples_rendered_total"] == Double(8 * 48000), "8 s at 48 kHz")
            #expect(samples["farm_verify_seconds_count"] == accepted && accepted == 5, "\(samples)")
            #expect(samples[#"farm_verify_seconds_bucket{le="+Inf"}"#] == accepted)
            #expect(samples["farm_join_seconds_count"] == 1 && (samples["farm_join_seconds_sum"] ?? 0) > 0)
            #expect(
                samples["farm_lease_expiries_total"]
                    == (try sql("SELECT count(*) AS total FROM attempts WHERE outcome = 'lost'")))
            #expect(
                samples["farm_attempts_failed_total"]
                    == (try sql("SELECT count(*) AS total FROM attempts WHERE outcome = 'failed'")))
            #expect(samples[#"farm_chunks{state="failed"}"#] == 0)

            // A revoked token answers 401 from then on.
            #expect(try farm.cli(["tokens", "list"]).stdout.contains("dashboard"))
            #expect(try farm.cli(["tokens", "revoke", "dashboard"]).status == 0)
            #expect(try Self.call("GET", "\(base)/api/jobs", token: read).status == 401)
            #expect(try farm.cli(["tokens", "revoke", "dashboard"]).status == 3)
        }
    }

    /// `POST /api/jobs`: a project submitted over HTTP renders as `farm submit` would, and its
    /// paths stay where `--media-root` and `--output-root` say: `..`, an absolute path elsewhere
    /// and a link out are refused, each naming the field.
    @Test func submitsObeyTheMediaAndOutputRoots() throws {
        try withTemporaryDirectory { dir in
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            let projectFile = try FarmTests.seamProject(in: media, width: 320, height: 180, seconds: 8)
            let project = try String(contentsOf: projectFile, encoding: .utf8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0", "--media-root", media.path])
            let base = try Self.baseURL(of: farm)
            let submit = try farm.cli(["tokens", "create", "editor", "--role", "submit"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let read = try farm.cli(["tokens", "create", "viewer", "--role", "read"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            func body(_ project: String, output: String) -> String {
                #"{"project": \#(project), "output": "\#(output)"}"#
            }
            func post(_ project: String, output: String, token: String) throws -> Answer {
                try Self.call("POST", "\(base)/api/jobs", token: token, body: body(project, output: output))
            }
            let output = dir.appendingPathComponent("out.mov").path
            #expect(try post(project, output: output, token: read).status == 403)

            // Escapes: each refused with the asset's path, nothing queued.
            try FileManager.default.createSymbolicLink(
                atPath: media.appendingPathComponent("link.mp4").path, withDestinationPath: "/etc/hostname")
            for (path, why) in [("../a.mp4", ".."), ("/etc/hostname", "absolute"), ("link.mp4", "link")] {
                let escaping = project.replacingOccurrences(of: #""path": "a.mp4""#, with: #""path": "\#(path)""#)
                #expect(escaping != project)
                let answer = try post(escaping, output: output, token: submit)
                #expect(answer.status == 400, "\(why): \(answer.body)")
                #expect(answer.body.contains(#""path":"project.assets.a.path""#), "\(why): \(answer.body)")
            }
            let outside = try post(project, output: "/tmp/x.mov", token: submit)
            #expect(outside.status == 400 && outside.body.contains(#""path":"output""#), "\(outside.body)")
            let relative = try post(project, output: "x.mov", token: submit)
            #expect(relative.status == 400 && relative.body.contains("must be an absolute path"), "\(relative.body)")
            let broken = project.replacingOccurrences(of: #""kind": "video""#, with: #""kind": "vidoe""#)
            let invalid = try post(broken, output: output, token: submit)
            #expect(invalid.status == 400 && invalid.body.contains(#""problems""#), "\(invalid.body)")
            #expect(try farm.store.connection.query("SELECT id FROM jobs").isEmpty)

            // A good one: queued (201), rendered by a worker, the file where it was asked for.
            let queued = try post(project, output: output, token: submit)
            #expect(queued.status == 201, "\(queued.body)")
            let job = try JSONDecoder().decode(JobStatus.self, from: Data(queued.body.utf8))
            try farm.startWorker("w1")
            #expect(try farm.finish(job.id).state == .done)
            #expect(try frameHashes(URL(fileURLWithPath: output)).count == 240)
            let again = try post(project, output: output, token: submit)
            #expect(again.status == 400 && again.body.contains("exists"), "an existing output is never replaced")
        }
    }

    /// `POST /api/jobs` with an OpenTimelineIO `timeline` in place of a project: imported as
    /// `farm import` does, its media confined as a project's; and `notify` checked and kept.
    @Test func timelinesAndNotifyURLsAreSubmittedOverHTTP() throws {
        try withTemporaryDirectory { dir in
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            _ = try FarmTests.seamProject(in: media, width: 320, height: 180, seconds: 4)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0", "--media-root", media.path])
            let base = try Self.baseURL(of: farm)
            let token = try farm.cli(["tokens", "create", "editor", "--role", "submit"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            func timeline(_ url: String) -> String {
                OTIODocument.timeline(
                    [OTIODocument.track("Video", "V1", [OTIODocument.clip("shot", url, source: (0, 48))])], rate: "24")
            }
            let output = dir.appendingPathComponent("cut.mov").path
            func post(_ fields: String) throws -> Answer {
                try Self.call("POST", "\(base)/api/jobs", token: token, body: "{\(fields), \"output\": \"\(output)\"}")
            }
            let escaping = try post(#""timeline": \#(timeline("/etc/hostname"))"#)
            #expect(escaping.status == 400 && escaping.body.contains("project.assets"), "\(escaping.body)")
            let notTimeline = try post(#""timeline": {"OTIO_SCHEMA": "Clip.2"}"#)
            #expect(notTimeline.status == 400 && notTimeline.body.contains(#""path":"timeline"#), "\(notTimeline.body)")
            let both = try post(#""timeline": \#(timeline("a.mp4")), "project": {}"#)
            #expect(both.status == 400 && both.body.contains("not both"), "\(both.body)")
            let badNotify = try post(#""timeline": \#(timeline("a.mp4")), "notify": "ftp://x""#)
            #expect(badNotify.status == 400 && badNotify.body.contains(#""path":"notify""#), "\(badNotify.body)")
            // Pools: "requires" as farm submit --requires takes it, each tag checked by its path.
            let tagsNotArray = try post(#""timeline": \#(timeline("a.mp4")), "requires": "4k""#)
            #expect(tagsNotArray.status == 400)
            #expect(tagsNotArray.body == #"{"error":"expected an array of tags, got a string","path":"requires"}"#)
            let badTag = try post(#""timeline": \#(timeline("a.mp4")), "requires": ["4k", "site a"]"#)
            #expect(badTag.status == 400)
            #expect(
                badTag.body
                    == #"{"error":"may hold only a-z, 0-9, '.', '_' and '-'","path":"requires[1]"}"#)
            #expect(try farm.store.connection.query("SELECT id FROM jobs").isEmpty)
            let pooledOutput = output + "-pooled.mov"
            let pooled = try Self.call(
                "POST", "\(base)/api/jobs", token: token,
                body: #"{"timeline": \#(timeline("a.mp4")), "output": "\#(pooledOutput)", "requires": ["4K", "gpu"]}"#)
            #expect(pooled.status == 201, "\(pooled.body)")
            let pooledJob = try JSONDecoder().decode(JobStatus.self, from: Data(pooled.body.utf8))
            #expect(pooledJob.requires == ["4k", "gpu"])
            #expect(try farm.cli(["cancel", String(pooledJob.id)]).status == 0)

            let queued = try post(#""timeline": \#(timeline("a.mp4")), "notify": "http://127.0.0.1:9/hook""#)
            #expect(queued.status == 201, "\(queued.body)")
            let job = try JSONDecoder().decode(JobStatus.self, from: Data(queued.body.utf8))
            #expect(job.frameCount == 48)
            #expect(
                try farm.store.connection.query("SELECT notify_url FROM jobs WHERE id = $1", [String(job.id)]).first?
                    .decode("notify_url", as: String?.self) == "http://127.0.0.1:9/hook")
            try farm.startWorker("w1")
            #expect(try farm.finish(job.id).state == .done)
            #expect(try frameHashes(URL(fileURLWithPath: output)).count == 48)

            // Again: every chunk from the segment cache; with "noCache", none.
            func again(_ name: String, _ extra: String) throws -> Int64 {
                let path = dir.appendingPathComponent(name).path
                let answer = try Self.call(
                    "POST", "\(base)/api/jobs", token: token,
                    body: #"{"timeline": \#(timeline("a.mp4")), "output": "\#(path)"\#(extra)}"#)
                #expect(answer.status == 201, "\(answer.body)")
                let id = try JSONDecoder().decode(JobStatus.self, from: Data(answer.body.utf8)).id
                #expect(try farm.finish(id).state == .done)
                return id
            }
            let reusedCount = { (id: Int64) in
                try farm.store.connection.query(
                    """
                    SELECT count(*) FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE c.job_id = $1 AND a.outcome = 'reused'
                    """, [String(id)])[0].decode("count", as: Int64.self)
            }
            let chunks = try farm.store.connection.query(
                "SELECT count(*) FROM chunks WHERE job_id = $1", [String(job.id)])[0].decode("count", as: Int64.self)
            let reader = try farm.cli(["tokens", "create", "watcher", "--role", "read"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let counted = { (name: String) in
                try Self.parseMetrics(Self.call("GET", "\(base)/metrics", token: reader).body)[name]
            }
            #expect(try counted("farm_frames_rendered_total") == 48)
            #expect(try counted("farm_chunks_reused_total") == 0)
            #expect(try reusedCount(again("cut-2.mov", "")) == chunks)
            // Frames taken from the cache are not frames rendered.
            #expect(try counted("farm_frames_rendered_total") == 48)
            #expect(try counted("farm_chunks_reused_total") == Double(chunks))
            #expect(try reusedCount(again("cut-3.mov", #", "noCache": true"#)) == 0)
            #expect(try counted("farm_frames_rendered_total") == 96)
            // Migration 16 starts the two counters from the tables: as counted live, with no retries.
            let live = try farm.store.counters().counters
            try farm.store.connection.query(
                "DELETE FROM farm_counters WHERE name IN ('farm_frames_rendered_total', 'farm_chunks_reused_total')")
            try farm.store.connection.run(script: Migrations.workCounters)
            #expect(try farm.store.counters().counters == live)
        }
    }

    /// schemathesis (PyPI) calls every operation of docs/openapi.yaml with its examples (job 1,
    /// worker w1: real ones), edge cases, random and schema-breaking inputs, undocumented methods
    /// and no token, as an operator token (so that controls act). It runs every check it has:
    /// no 5xx; statuses, content types, headers and bodies as the file lists them; schema-breaking
    /// input refused, schema-valid input taken; 405 with `Allow` for a method a path lacks; 401
    /// without the token. Tests/Scripts/schemathesis.toml leaves one out where no schema can tell
    /// (a valid submission needs real media), and Tests/Scripts/schemathesis_hooks.py adds one:
    /// every error, any path or status, is the API's JSON shape. 20 examples an operation, one
    /// worker and a fixed seed: a few seconds, the same cases every run.
    @Test func theAPIKeepsToItsOpenAPIFile() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0", "--media-root", dir.path])
            try farm.startWorker("w1")
            let job = try farm.submit(project, output: dir.appendingPathComponent("out.mov"), chunkArguments: [])
            #expect(job == 1, "the file's example job")
            #expect(try farm.finish(job).state == .done)
            let base = try Self.baseURL(of: farm)
            let token = try farm.cli(["tokens", "create", "fuzz", "--role", "operate"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let schemathesis = URL(fileURLWithPath: OTIOOracleTests.python).deletingLastPathComponent()
                .appendingPathComponent("schemathesis").path
            let repository = DashboardBrowserTests.repository
            let scripts = repository.appendingPathComponent("Tests/Scripts")
            let result = try run(
                "/usr/bin/env",
                [
                    "SCHEMATHESIS_HOOKS=\(scripts.appendingPathComponent("schemathesis_hooks.py").path)",
                    schemathesis, "--config-file", scripts.appendingPathComponent("schemathesis.toml").path,
                    "run", repository.appendingPathComponent("docs/openapi.yaml").path,
                    "--url", base, "-H", "Authorization: Bearer \(token)",
                    // An endless stream: the browser test reads it.
                    "--exclude-path", "/api/events",
                    "--max-examples", "20", "--seed", "1", "--workers", "1", "--no-color",
                ], in: dir, timeout: 600)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("passed"), "\(result.stdout)")
        }
    }

    /// `/metrics` text read by `prometheus_client`'s parser (PyPI, in the tests' virtual
    /// environment): each sample as `name{labels}` → value.
    static func parseMetrics(_ text: String) throws -> [String: Double] {
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            samples = {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                for s in family.samples:
                    labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                    samples[s.name + ("{" + labels + "}" if labels else "")] = s.value
            print(json.dumps(samples))
            """
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let result = try run(
            "/bin/sh", ["-c", "\"$0\" -c \"$1\" < \"$2\"", OTIOOracleTests.python, script, input.path])
        guard result.status == 0 else { throw TestError.failed("prometheus_client refused /metrics: \(result.stderr)") }
        return try JSONDecoder().decode([String: Double].self, from: Data(result.stdout.utf8))
    }

    static func baseURL(of farm: TestFarm) throws -> String {
        var base = ""
        try farm.wait("the HTTP API to listen", timeout: 30) {
            let log = farm.coordinator?.output ?? ""
            guard let range = log.range(of: "HTTP API on ") else { return false }
            base = String(log[range.upperBound...].prefix { !$0.isWhitespace })
            return true
        }
        return base
    }
}
