import Foundation
import TestSupport
import Testing

/// The dashboard's own player in headless Chromium (Tests/Scripts/player_browser.py): a done
/// HLS job's 720p rendition played from start to end through Media Source Extensions, then a
/// running job's live preview: its accepted chunks while the job is paused part way, all of
/// them once it is done.
@Suite struct PlayerBrowserTests {
    static func project(seconds: Int, export: String) -> String {
        """
        {"output": {"width": 1280, "height": 720, "fps": "30"},
         "export": \(export),
         "assets": {"a": {"path": "a.mp4"}},
         "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "\(seconds)"}]},
                    {"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "\(seconds)"}]}]}
        """
    }

    @Test func theDashboardPlaysARenditionToItsEndAndAPreviewThatGrows() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=1280x720:rate=30:duration=8",
                audio: "sine=frequency=330:duration=8", extra: ["-shortest"])
            let ladder = dir.appendingPathComponent("ladder.json")
            try Data(
                Self.project(
                    seconds: 6,
                    export: #"""
                        {"video": {"gop": 30},
                         "renditions": [{"width": 1280, "height": 720},
                                        {"width": 640, "height": 360, "video": {"crf": 28}}]}
                        """#
                ).utf8
            ).write(to: ladder)
            let plain = dir.appendingPathComponent("plain.json")
            try Data(Self.project(seconds: 8, export: #"{"video": {"gop": 15, "preset": "slower"}}"#).utf8).write(
                to: plain)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0"])
            let base = try HTTPAPITests.baseURL(of: farm)
            let token = try farm.cli(["tokens", "create", "player", "--role", "read"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try farm.startWorker("w1@vm")
            let package = try farm.submit(
                ladder, output: dir.appendingPathComponent("show.m3u8"), chunkArguments: ["--no-cache"])
            #expect(try farm.finish(package).state == .done, "\(farm.logs)")
            for worker in farm.workers { worker.stop() }
            // 16 chunks of half a second, accepted one by one in order: one render slot, and
            // x264's slower preset, so that rendering, not the upload, paces them (a slot is free
            // again once its upload starts: with slow uploads, every chunk would be rendered and
            // waiting to upload when the job is paused).
            let live = try farm.submit(
                plain, output: dir.appendingPathComponent("live.mp4"),
                chunkArguments: ["--chunk-frames", "15", "--no-cache"])
            let handshake = dir.appendingPathComponent("handshake")
            try FileManager.default.createDirectory(at: handshake, withIntermediateDirectories: true)
            let browser = try RunningProgram(
                OTIOOracleTests.python,
                [
                    DashboardBrowserTests.repository.appendingPathComponent("Tests/Scripts/player_browser.py").path,
                    "--base", base, "--token", token, "--package", String(package), "--live", String(live),
                    "--handshake", handshake.path,
                ])
            var (started, paused, resumed) = (false, false, false)
            try farm.wait("the browser to finish", timeout: 400) {
                let steps = Set((try? FileManager.default.contentsOfDirectory(atPath: handshake.path)) ?? [])
                if steps.contains("start-workers") && !started {
                    try farm.startWorker("w2@vm", arguments: ["--slots", "1"])
                    started = true
                }
                // Paused once four chunks (two seconds) are in, so the page sees a preview that
                // has part of the job, then all of it.
                let done = try farm.read(
                    "SELECT count(*) FROM chunks WHERE job_id = $1 AND kind = 'video' AND state = 'done'",
                    [String(live)])[0].decode("count", as: Int64.self)
                if started && !paused && done >= 4 {
                    try #require(try farm.cli(["pause", String(live)]).status == 0)
                    // Chunks claimed before the pause still come in: the preview then holds
                    // the prefix accepted once none runs, and no more while the job is paused.
                    try farm.wait("the paused job's running chunks to come in", timeout: 120) {
                        try farm.read(
                            "SELECT count(*) FROM chunks WHERE job_id = $1 AND state = 'running'", [String(live)]
                        )[0].decode("count", as: Int64.self) == 0
                    }
                    let prefix = try Self.acceptedPrefix(of: live, in: farm)
                    try Data(String(Double(prefix) * 0.5).utf8).write(to: handshake.appendingPathComponent("paused"))
                    paused = true
                }
                if steps.contains("resume") && !resumed {
                    let resume = try farm.cli(["resume", String(live)])
                    try #require(resume.status == 0, "\(resume.stdout)\(resume.stderr)")
                    resumed = true
                }
                return steps.contains("finished")
            }
            let result = try browser.finish(timeout: 10)
            try #require(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            let seen = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]

            let played = seen["package"] as? [String: [String: Any]] ?? [:]
            let (first, second, last) = (played["first"] ?? [:], played["second"] ?? [:], played["last"] ?? [:])
            #expect(first["width"] as? Int == 1280 && first["height"] as? Int == 720, "\(played)")
            #expect(first["renditions"] as? [String] != nil && (first["renditions"] as? [String])?.count == 2)
            #expect(
                (second["currentTime"] as? Double ?? 0) > (first["currentTime"] as? Double ?? 0),
                "the playhead advances: \(played)")
            #expect(last["ended"] as? Bool == true, "\(played)")
            // From its first frame to its last: six seconds, as the master's media playlist lists.
            let start = first["bufferedStart"] as? Double ?? -1
            #expect(start >= 0 && start < 0.1, "\(played)")
            #expect(abs((last["currentTime"] as? Double ?? 0) - start - 6) < 0.1, "\(played)")
            #expect(last["error"] is NSNull, "\(played)")

            let preview = seen["live"] as? [String: Any] ?? [:]
            let (atPause, atEnd) = (
                preview["paused"] as? [String: Any] ?? [:], preview["done"] as? [String: Any] ?? [:]
            )
            let accepted = preview["accepted"] as? Double ?? 0
            func span(_ reading: [String: Any]) -> Double {
                (reading["bufferedEnd"] as? Double ?? 0) - (reading["bufferedStart"] as? Double ?? 0)
            }
            // Part of the job while it was paused, running: the accepted chunks and no more.
            #expect(accepted >= 2 && accepted < 8, "\(preview)")
            #expect((atPause["state"] as? String ?? "").hasPrefix("running"), "\(preview)")
            #expect(
                abs(span(atPause) - accepted) < 0.01, "the paused job's preview holds its accepted chunks: \(preview)")
            #expect((atPause["status"] as? String ?? "").hasSuffix("so far"), "\(preview)")
            // All of it once done: eight seconds, the playlist ended.
            #expect(abs(span(atEnd) - 8) < 0.01, "the preview grew to the whole job: \(preview)")
            #expect(atEnd["width"] as? Int == 1280, "\(preview)")
            // Seeked into a finished part, the chunk map outlines the chunk shown there.
            let seeked = preview["seeked"] as? [String: Any] ?? [:]
            #expect(seeked["playhead"] as? Int == 2, "\(preview)")
            let target = (seeked["bufferedStart"] as? Double ?? 0) + 1.25
            #expect(abs((seeked["currentTime"] as? Double ?? 0) - target) < 0.05, "\(preview)")
            #expect(try farm.finish(live).state == .done)
        }
    }

    /// How many video chunks of `job`, from the first on, are accepted: what its preview lists.
    static func acceptedPrefix(of job: Int64, in farm: TestFarm) throws -> Int {
        let states = try farm.read(
            "SELECT state FROM chunks WHERE job_id = $1 AND kind = 'video' ORDER BY idx", [String(job)]
        ).map { try $0.decode("state", as: String.self) }
        return states.prefix { $0 == "done" }.count
    }
}
