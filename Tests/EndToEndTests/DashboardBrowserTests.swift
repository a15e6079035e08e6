import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The dashboard in a real browser (Debian's headless Chromium, driven by selenium from PyPI)
/// during a real farm render: Tests/Scripts/dashboard_browser.py is the user at the page, this
/// test is the farm around it. While the job renders the page is read at 1280x800 and at a
/// phone's 390x844 (no horizontal overflow, a live running-chunks table, buttons that match the
/// job's state and the token's role, per-attempt log lines); its screenshots are kept in
/// .build/test-artifacts/dashboard.
@Suite struct DashboardBrowserTests {
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    @Test func aUserWatchesARenderAtTwoSizesAndSeesTheCoordinatorGoAndComeBack() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir, width: 320, height: 180, seconds: 12)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0"])
            let base = try HTTPAPITests.baseURL(of: farm)
            let token = try farm.cli(["tokens", "create", "browser", "--role", "operate"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let readToken = try farm.cli(["tokens", "create", "viewer", "--role", "read"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // 36 chunks of 10 frames: enough for the page to see them done one by one.
            let job = try farm.submit(
                project, output: dir.appendingPathComponent("out.mov"), chunkArguments: ["--chunk-frames", "10"])
            // Chunk 0 was lost once by a worker that went away, as a lease's expiry leaves it:
            // the job page lists that attempt.
            try farm.store.connection.query(
                "UPDATE chunks SET attempt = 1 WHERE job_id = $1 AND kind = 'video' AND idx = 0", [String(job)])
            try farm.store.connection.query(
                """
                INSERT INTO attempts (chunk_id, attempt, worker_id, outcome, error, finished_at)
                SELECT id, 1, 'w9@gone', 'lost', 'lease expired: worker went silent', now()
                FROM chunks WHERE job_id = $1 AND kind = 'video' AND idx = 0
                """, [String(job)])
            let shots = Self.repository.appendingPathComponent(".build/test-artifacts/dashboard")
            try? FileManager.default.removeItem(at: shots)
            let handshake = dir.appendingPathComponent("handshake")
            try FileManager.default.createDirectory(at: handshake, withIntermediateDirectories: true)
            let browser = try RunningProgram(
                OTIOOracleTests.python,
                [
                    Self.repository.appendingPathComponent("Tests/Scripts/dashboard_browser.py").path,
                    "--base", base, "--token", token, "--read-token", readToken, "--job", String(job),
                    "--shots", shots.path,
                    "--handshake", handshake.path,
                ])
            var workerStarted = false
            var coordinatorStopped = false
            var coordinatorRestarted = false
            try farm.wait("the browser to finish", timeout: 400) {
                let steps = Set((try? FileManager.default.contentsOfDirectory(atPath: handshake.path)) ?? [])
                if steps.contains("start-workers") && !workerStarted {
                    // Uploads held to 100 kB/s, so that the page sees chunks finish one by one.
                    try farm.startWorker("w1@vm", arguments: ["--upload-limit", "100K"])
                    workerStarted = true
                }
                if steps.contains("stop-coordinator") && !coordinatorStopped {
                    farm.coordinator?.stop()
                    coordinatorStopped = true
                }
                if steps.contains("restart-coordinator") && !coordinatorRestarted {
                    // On the address the page knows.
                    try farm.startCoordinator(arguments: ["--http", String(base.dropFirst("http://".count))])
                    coordinatorRestarted = true
                }
                return steps.contains("finished")
            }
            let result = try browser.finish(timeout: 10)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            let seen = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
            let chunks = Int(
                try farm.store.connection.query("SELECT count(*) FROM chunks WHERE job_id = $1", [String(job)])[0]
                    .decode(
                        "count", as: Int64.self))
            #expect(chunks > 36, "36 video chunks and the audio blocks")
            #expect(seen["chunks"] as? Int == chunks, "a cell per video chunk and audio block: \(seen)")
            #expect((seen["mapStatesSeen"] as? Int ?? 0) >= 3, "the map changed while the page was open: \(seen)")
            #expect(seen["doneAfter"] as? Int == chunks)
            #expect(seen["thumbnailWidth"] as? Int == 160)
            // The job page shows the QC report: the project has no loudness target.
            #expect(seen["qcVerdict"] as? String == "No loudness target", "\(seen)")
            #expect((seen["qcFacts"] as? String ?? "").contains("Seams"), "\(seen)")
            // And its trace: a slot row per worker, a bar per accepted render.
            #expect((seen["traceRows"] as? Int ?? 0) >= 1, "\(seen)")
            #expect((seen["traceBars"] as? Int ?? 0) >= 1, "a bar per render: \(seen)")
            #expect((seen["traceTail"] as? String ?? "").contains("join"), "\(seen)")
            // At both sizes, while the job rendered: the page fit its window, the running chunks
            // changed, an operate token saw Pause (not Resume) and a chunk's log had lines.
            for width in [1280, 390] {
                let size = (seen["sizes"] as? [String: Any])?[String(width)] as? [String: Any] ?? [:]
                #expect((size["pageWidth"] as? Int ?? .max) <= width, "\(width): \(size)")
                #expect((size["workersPageWidth"] as? Int ?? .max) <= width, "\(width): \(size)")
                #expect(size["favicon"] as? Bool == true, "the page has an icon of its own: \(size)")
                #expect(size["lostAttempts"] as? [String] == ["lost"], "\(width): \(size)")
                #expect(size["jobState"] as? String == "running", "\(width): \(size)")
                #expect(size["jobButtons"] as? [String] == ["cancel", "pause"], "\(width): \(size)")
                #expect(
                    size["runningBefore"] as? [String] != size["runningAfter"] as? [String], "\(width): \(size)")
                #expect((size["logLines"] as? Int ?? 0) > 0, "\(width): \(size)")
                #expect((size["historyRows"] as? Int ?? 0) > 0, "\(width): \(size)")
            }
            let readOnly = seen["readOnly"] as? [String: Any] ?? [:]
            #expect(readOnly["jobState"] as? String == "running", "\(readOnly)")
            #expect(readOnly["jobButtons"] as? [String] == [] && readOnly["workerButtons"] as? [String] == [])
            #expect(seen["staleState"] as? String == "last known: done")
            let names = seen["screenshots"] as? [String] ?? []
            #expect(names.count == 14, "\(names)")
            #expect(names.contains("05-rendering-390.png") && names.contains("04-rendering-1280.png"), "\(names)")
            for name in names {
                let data = try Data(contentsOf: shots.appendingPathComponent(name))
                #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && data.count > 5_000, "\(name) is a picture")
            }
            // A worker's fps is what it renders now (nothing, once the job is done), its lifetime
            // average beside it.
            #expect((seen["workerFps"] as? String ?? "").hasPrefix("0.0 (avg "), "\(seen["workerFps"] ?? "")")
            // The drain button did what `farm workers drain` does.
            #expect(
                try farm.store.connection.query("SELECT draining FROM workers WHERE id = 'w1@vm'").first?.decode(
                    "draining", as: Bool.self) == true)
            #expect(try farm.store.job(job)?.state == .done)
        }
    }
}
