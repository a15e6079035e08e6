import FarmCore
import Foundation
import TestSupport
import Testing

/// Every kind of bad input: exit code 2, one message naming the file or JSON path, no output.
@Suite struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The project file's text.
        var project: String
        /// How the single message must begin.
        var expected: String
        /// A file name the message must also mention.
        var mentions: String = "project.json"
        var testDescription: String { name }
    }

    static func project(items: String, assets: String = #""a": {"path": "a.mp4"}"#) -> String {
        """
        {"output": {"width": 64, "height": 64, "fps": "30"}, "assets": {\(assets)},
         "tracks": [{"kind": "video", "items": [\(items)]}]}
        """
    }

    static let cases: [Case] = [
        Case(
            name: "malformed JSON", project: #"{"output": {"width": 64,, }"#,
            expected: "project.json: malformed JSON at line 1, column 25: expected a quoted key"),
        Case(
            name: "unknown key", project: project(items: #"{"asset": "a", "at": "0", "duration": "1", "opacty": 0.5}"#),
            expected: #"project.json: tracks[0].items[0].opacty: unknown key (did you mean "opacity"?)"#),
        Case(
            name: "unknown asset", project: project(items: #"{"asset": "c", "at": "0", "duration": "1"}"#),
            expected: #"project.json: tracks[0].items[0].asset: unknown asset "c""#),
        Case(
            name: "negative duration", project: project(items: #"{"asset": "a", "at": "0", "duration": "-1"}"#),
            expected: "project.json: tracks[0].items[0].duration: must be > 0 (got -1)"),
        Case(
            name: "source past the end",
            project: project(items: #"{"asset": "a", "at": "0", "duration": "1", "source": {"start": "61"}}"#),
            expected: #"project.json: tracks[0].items[0].source.start: 61 is past the end of asset "a" (2.0 s)"#),
        Case(
            name: "overlapping items",
            project: project(
                items: #"{"asset": "a", "at": "0", "duration": "1"}, {"asset": "a", "at": "0.5", "duration": "1"}"#),
            expected: "project.json: tracks[0].items[1]: overlaps tracks[0].items[0] on the same track"),
        Case(
            name: "missing file",
            project: project(
                items: #"{"asset": "m", "at": "0", "duration": "1"}"#, assets: #""m": {"path": "missing.mp4"}"#),
            expected: "project.json: assets.m.path: file not found"),
        Case(
            name: "truncated mp4",
            project: project(
                items: #"{"asset": "t", "at": "0", "duration": "1"}"#, assets: #""t": {"path": "truncated.mp4"}"#),
            expected: "project.json: assets.t.path: cannot read ", mentions: "truncated.mp4"),
        Case(
            name: "image with no decoder",
            project: project(
                items: #"{"asset": "i", "at": "0", "duration": "1"}"#, assets: #""i": {"path": "broken.png"}"#),
            expected: "project.json: assets.i.path: ", mentions: "broken.png: Invalid data"),
        Case(
            name: "not media at all",
            project: project(
                items: #"{"asset": "i", "at": "0", "duration": "1"}"#, assets: #""i": {"path": "garbage.png"}"#),
            expected: "project.json: assets.i.path: ", mentions: "garbage.png"),
        Case(
            // A header claiming 65535 channels: the decoder refuses to open, and the half-opened
            // file must be closed once (it was closed twice, a crash in libavformat).
            name: "wav with 65535 channels",
            project: """
                {"assets": {"s": {"path": "channels.wav"}},
                 "tracks": [{"kind": "audio", "items": [{"asset": "s", "at": "0", "duration": "1"}]}]}
                """,
            expected: "project.json: assets.s.path: cannot open decoder for ", mentions: "channels.wav"),
        Case(
            // Opening a FIFO blocks until someone writes to it: it must be refused, not opened.
            name: "fifo as an asset",
            project: project(
                items: #"{"asset": "f", "at": "0", "duration": "1"}"#, assets: #""f": {"path": "fifo.mp4"}"#),
            expected: "project.json: assets.f.path: not a regular file (a folder, FIFO or device)",
            mentions: "fifo.mp4"),
        Case(
            name: "broken surrogate pair",
            project: project(items: #"{"asset": "a", "at": "0", "duration": "1", "muted": "\ud800\u0041"}"#),
            expected: "project.json: malformed JSON at line 2, column 106: invalid surrogate pair"),
        Case(
            name: "time too large to compute with",
            project: project(items: #"{"asset": "a", "at": "123456789012345678", "duration": "1"}"#),
            expected: #"project.json: tracks[0].items[0].at: "123456789012345678" is out of range"#),
        Case(
            name: "subrip cue ending before it starts",
            project: project(
                items: #"{"asset": "s", "at": "0", "duration": "1"}"#, assets: #""s": {"path": "bad.srt"}"#),
            expected: "project.json: assets.s.path: bad.srt:6: cue end 00:00:03,000 is before its start 00:00:04,000"),
        Case(
            name: "webvtt without its header",
            project: project(
                items: #"{"asset": "s", "at": "0", "duration": "1", "captions": {"soft": true}}"#,
                assets: #""s": {"path": "bad.vtt"}"#),
            expected: "project.json: assets.s.path: bad.vtt:1: a WebVTT file starts with the line WEBVTT"),
    ]

    @Test(arguments: cases)
    func badInputIsRejected(_ testCase: Case) throws {
        try withTemporaryDirectory { dir in
            let good = try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x64:rate=30:duration=2")
            // Keep only the first third of a good file: the moov atom is lost.
            let bytes = try Data(contentsOf: good)
            try bytes.prefix(bytes.count / 3).write(to: dir.appendingPathComponent("truncated.mp4"))
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(
                to: dir.appendingPathComponent("garbage.png"))
            // A real PNG header followed by noise: recognised as PNG, but no picture decodes.
            try ffmpeg(["-f", "lavfi", "-i", "color=red:size=32x32", "-frames:v", "1", "good.png"], in: dir)
            let png = try Data(contentsOf: dir.appendingPathComponent("good.png"))
            try (png.prefix(41) + Data(repeating: 0xA5, count: 600)).write(to: dir.appendingPathComponent("broken.png"))
            let wav = try TestMedia.make("tone.wav", in: dir, audio: "sine=duration=1")
            var header = try Data(contentsOf: wav)
            header[22] = 0xFF
            header[23] = 0xFF
            try header.write(to: dir.appendingPathComponent("channels.wav"))
            try run("mkfifo", [dir.appendingPathComponent("fifo.mp4").path])
            try Data(
                "1\r\n00:00:01,000 --> 00:00:02,000\r\nfine\r\n\r\n2\r\n00:00:04,000 --> 00:00:03,000\r\nno\r\n".utf8
            )
            .write(to: dir.appendingPathComponent("bad.srt"))
            try Data("00:00:01.000 --> 00:00:02.000\nno header\n".utf8).write(to: dir.appendingPathComponent("bad.vtt"))
            try Data(testCase.project.utf8).write(to: dir.appendingPathComponent("project.json"))
            let result = try runFarm(["render", "project.json", "-o", "out.mp4", "--local"], in: dir)
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status == 2, "\(result.stderr)")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix(testCase.expected), "\(result.stderr)")
            #expect(result.stderr.contains(testCase.mentions), "\(result.stderr)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.contains("out.mp4")
            }
            #expect(leftovers.isEmpty)
        }
    }

    /// On a farm the workers and the database start while the project is read: a project that
    /// fails to load stops them, leaving no process of the farm's running and nothing written.
    @Test func aBadProjectOnAFarmStopsTheWorkersAndDatabaseStartedBesideIt() throws {
        try withTemporaryDirectory { dir in
            try Data(#"{"assets": {}, "tracks": 5}"#.utf8).write(to: dir.appendingPathComponent("project.json"))
            let data = dir.appendingPathComponent("farm")
            let result = try runFarm(
                ["render", "project.json", "-o", "out.mp4", "--data", data.path, "--workers", "2"], in: dir)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(
                result.stderr == "project.json: tracks: expected an array of tracks, got a number\n",
                "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mp4").path))
            // They did start: each wrote its log.
            for index in 1...2 {
                #expect(
                    FileManager.default.fileExists(atPath: data.appendingPathComponent("logs/worker-\(index).log").path)
                )
            }
            #expect(Self.processes(mentioning: data.path).isEmpty)
        }
    }

    /// The command lines of running processes that contain `text`.
    static func processes(mentioning text: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int($0) != nil }.compactMap { pid in
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return line.contains(text) ? line : nil
        }
    }

    /// With --media-root, assets must stay inside it: an absolute path elsewhere, `..` and a link
    /// that leads out are refused before any of them is opened.
    @Test(arguments: ["/SECRET", "../secret.mp4", "link.mp4"])
    func assetsOutsideTheMediaRootAreRefused(path: String) throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let secret = try TestMedia.make("secret.mp4", in: dir, video: "testsrc2=size=64x64:rate=30:duration=1")
            try TestMedia.make("inside.mp4", in: root, video: "testsrc2=size=64x64:rate=30:duration=1")
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("link.mp4"), withDestinationURL: secret)
            let asset = path == "/SECRET" ? secret.path : path
            try Data(
                """
                {"output": {"width": 64, "height": 64},
                 "assets": {"in": {"path": "inside.mp4"}, "out": {"path": "\(asset)"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "in", "at": "0", "duration": "1"},
                   {"asset": "out", "at": "1", "duration": "1"}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("project.json"))
            let refused = try runFarm(["validate", "project.json", "--media-root", root.path], in: dir)
            #expect(refused.status == 2, "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("project.json: assets.out.path: "), "\(refused.stderr)")
            #expect(refused.stderr.contains("is outside the media root"), "\(refused.stderr)")
            // Without --media-root nothing is confined: the same project validates.
            if path != "../secret.mp4" {
                try FileManager.default.copyItem(
                    at: root.appendingPathComponent("inside.mp4"), to: dir.appendingPathComponent("inside.mp4"))
                try? FileManager.default.createSymbolicLink(
                    at: dir.appendingPathComponent("link.mp4"), withDestinationURL: secret)
                let open = try runFarm(["validate", "project.json"], in: dir)
                #expect(open.status == 0, "\(open.stderr)")
            }
        }
    }
}
