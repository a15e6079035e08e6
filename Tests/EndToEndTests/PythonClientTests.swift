import Foundation
import TestSupport
import Testing

/// clients/python's example, run as an app would: against a real coordinator over HTTP alone,
/// it uploads a clip, music and captions, keeps a template, renders it with merge values,
/// follows the job, downloads the file and checks the webhook's HMAC. The download must decode
/// as `farm render --local` of the same template with the same values.
@Suite struct PythonClientTests {
    static let repository = DashboardBrowserTests.repository

    /// A farm taking uploads and submissions over HTTP, one worker; its API's address, a
    /// submit token and the folders it uses.
    static func startFarm(in dir: URL) throws -> (TestFarm, base: String, token: String, media: URL, out: URL) {
        let media = dir.appendingPathComponent("media")
        let out = dir.appendingPathComponent("out")
        for folder in [media, out] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let farm = try TestFarm(directory: dir)
        try farm.startCoordinator(arguments: [
            "--http", "127.0.0.1:0", "--media-root", media.path, "--output-root", out.path,
            "--cors-origin", "https://app.example", "--media-limit", "100M",
        ])
        try farm.startWorker("w1")
        let base = try HTTPAPITests.baseURL(of: farm)
        let token = try farm.cli(["tokens", "create", "app", "--role", "submit"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return (farm, base, token, media, out)
    }

    @Test func aJobMadeEntirelyOverHTTPDecodesAsTheLocalRender() throws {
        try withTemporaryDirectory { dir in
            let (farm, base, token, media, out) = try Self.startFarm(in: dir)
            defer { farm.stopAll() }
            let local = dir.appendingPathComponent("local")
            try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
            try TestMedia.make(
                "clip.mp4", in: local, video: "testsrc2=size=320x180:rate=25:duration=3",
                audio: "sine=frequency=500:duration=3", extra: ["-shortest"])
            try TestMedia.make("music.wav", in: local, audio: "sine=frequency=330:duration=3")
            try Data("1\n00:00:00,200 --> 00:00:01,500\nHello from the farm\n".utf8)
                .write(to: local.appendingPathComponent("talk.srt"))
            let secret = try farm.cli(["tokens", "notify-secret"]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            let download = dir.appendingPathComponent("downloaded.mp4")
            let result = try run(
                "/usr/bin/python3",
                [
                    Self.repository.appendingPathComponent("clients/python/examples/render_over_http.py").path,
                    "--url", base, "--token", token, "--notify-secret", secret,
                    "--clip", local.appendingPathComponent("clip.mp4").path,
                    "--music", local.appendingPathComponent("music.wav").path,
                    "--captions", local.appendingPathComponent("talk.srt").path,
                    "--output", out.appendingPathComponent("oslo.mp4").path, "--download", download.path,
                ], timeout: 300)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            let summaryLine = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
            let summary = try JSONSerialization.jsonObject(with: Data(summaryLine.utf8)) as? [String: Any] ?? [:]
            #expect(summary["webhookValid"] as? Bool == true, "\(result.stdout)")
            #expect(summary["forgedValid"] as? Bool == false)
            #expect(summary["webhookJob"] as? Int == summary["job"] as? Int)
            // What the coordinator wrote, byte for byte.
            #expect(try Data(contentsOf: download) == Data(contentsOf: out.appendingPathComponent("oslo.mp4")))

            // The oracle: the kept template, rendered in one process with the same values from the
            // same uploaded files.
            let template = summary["template"] as? Int ?? 0
            let kept = try HTTPAPITests.call("GET", "\(base)/api/templates/\(template)", token: token)
            #expect(kept.status == 200, "\(kept.body)")
            let project = (try JSONSerialization.jsonObject(with: Data(kept.body.utf8)) as? [String: Any])?["project"]
            try JSONSerialization.data(withJSONObject: project ?? [:]).write(to: dir.appendingPathComponent("t.json"))
            let rendered = try runFarm(
                [
                    "render", "t.json", "-o", "local.mp4", "--local", "--media-root", media.path,
                    "--set", "CITY=Oslo", "--set", "LEVEL=0.8",
                ], in: dir)
            #expect(rendered.status == 0, "\(rendered.stderr)")
            let reference = dir.appendingPathComponent("local.mp4")
            #expect(try frameHashes(download) == frameHashes(reference))
            #expect(try audioHash(download) == audioHash(reference))
            #expect(try frameHashes(download).count == 50)
        }
    }
}
