import Foundation
import TestSupport
import Testing

/// The dashboard's own player in headless Chromium (Tests/Scripts/player_browser.py): a done
/// HLS job's 720p rendition played from start to end through Media Source Extensions, then a
/// running job's live preview, its end growing while its chunks are accepted.
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
            try Data(Self.project(seconds: 8, export: #"{"video": {"gop": 15}}"#).utf8).write(to: plain)
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
            // 16 chunks of half a second, accepted one by one: uploads held to 150 kB/s.
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
            var started = false
            try farm.wait("the browser to finish", timeout: 400) {
                let steps = Set((try? FileManager.default.contentsOfDirectory(atPath: handshake.path)) ?? [])
                if steps.contains("start-workers") && !started {
                    try farm.startWorker("w2@vm", arguments: ["--upload-limit", "150K"])
                    started = true
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
            let ends = preview["endsWhileRunning"] as? [Double] ?? []
            #expect(Set(ends.filter { $0 > 0 }).count >= 3, "the preview's end grew while the job ran: \(preview)")
            #expect(ends == ends.sorted(), "and never shrank: \(ends)")
            #expect((preview["states"] as? [String] ?? []).contains("done"), "\(preview)")
            let playheads = preview["playheads"] as? [Int] ?? []
            #expect(playheads.contains { $0 >= 0 }, "the chunk map marks the playhead's chunk: \(preview)")
            #expect((preview["last"] as? [String: Any])?["width"] as? Int == 1280, "\(preview)")
            #expect(try farm.finish(live).state == .done)
        }
    }
}
