import Foundation
import TestSupport
import Testing

/// `export.poster` and `export.thumbnails`: each still is the output's own frame at its time,
/// as ffmpeg decodes and scales it, whether one process rendered the output or the farm's
/// workers did, and whether the chunks were rendered or reused from the segment cache.
@Suite(.serialized) struct OutputStillsTests {
    /// 4 s at 30 fps of a picture that changes every frame; poster at 1.5 s, thumbnails every
    /// 0.7 s (frames 0, 21, 42, 63, 84, 105: inside GOPs, never on a chunk's first frame only).
    static func project(export: String) -> String {
        """
        {"output": {"width": 320, "height": 240, "fps": "30"},
         "export": \(export),
         "assets": {"a": {"path": "a.mp4"}},
         "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "4"}]}]}
        """
    }

    /// Frame `frame` of `file` as ffmpeg decodes it, scaled by the rule docs/project-format.md
    /// states, as packed RGB.
    static func ffmpegFrame(_ file: URL, frame: Int, width: Int, height: Int) throws -> [UInt8] {
        let raw = file.deletingLastPathComponent().appendingPathComponent("oracle-\(frame)-\(width).rgb")
        try ffmpeg([
            "-i", file.path, "-vf",
            "select=eq(n\\,\(frame)),scale=\(width):\(height):flags=bicubic+accurate_rnd+bitexact",
            "-frames:v", "1", "-pix_fmt", "rgb24", "-f", "rawvideo", raw.path,
        ])
        return [UInt8](try Data(contentsOf: raw))
    }

    /// A picture file decoded to packed RGB, `crop` (w:h:x:y) of it when given.
    static func decodedPicture(_ file: URL, crop: String? = nil) throws -> [UInt8] {
        let raw = file.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + ".rgb")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ffmpeg(
            ["-i", file.path] + (crop.map { ["-vf", "crop=\($0)"] } ?? []) + [
                "-pix_fmt", "rgb24", "-f", "rawvideo", raw.path,
            ])
        return [UInt8](try Data(contentsOf: raw))
    }

    /// The cues of a thumbnail track: (start, end, x, y, w, h).
    static func cues(_ track: String, sheet: String) -> [(String, String, [Int])] {
        let lines = track.split(separator: "\n").map(String.init)
        var cues: [(String, String, [Int])] = []
        for (index, line) in lines.enumerated() where line.contains(" --> ") && index + 1 < lines.count {
            let times = line.components(separatedBy: " --> ")
            let target = lines[index + 1]
            guard target.hasPrefix(sheet + "#xywh=") else { continue }
            let numbers = target.dropFirst(sheet.count + 6).split(separator: ",").compactMap { Int($0) }
            cues.append((times[0], times[1], numbers))
        }
        return cues
    }

    /// Checks `NAME.thumbnails.png` and its track beside `output`: every 0.7 s, 80x60 tiles.
    static func checkThumbnails(beside output: URL) throws {
        let name = output.deletingPathExtension().lastPathComponent
        let folder = output.deletingLastPathComponent()
        let track = try String(contentsOf: folder.appendingPathComponent("\(name).thumbnails.vtt"), encoding: .utf8)
        #expect(track.hasPrefix("WEBVTT\n"))
        let cues = Self.cues(track, sheet: "\(name).thumbnails.png")
        let frames = [0, 21, 42, 63, 84, 105]
        try #require(cues.count == frames.count, "\(track)")
        #expect(cues.first?.0 == "00:00:00.000" && cues[1].0 == "00:00:00.700" && cues.last?.1 == "00:00:04.000")
        let sheet = folder.appendingPathComponent("\(name).thumbnails.png")
        for (cue, frame) in zip(cues, frames) {
            let rect = cue.2
            try #require(rect.count == 4 && rect[2] == 80 && rect[3] == 60, "\(cue)")
            let tile = try Self.decodedPicture(sheet, crop: "\(rect[2]):\(rect[3]):\(rect[0]):\(rect[1])")
            #expect(
                tile == (try Self.ffmpegFrame(output, frame: frame, width: 80, height: 60)),
                "\(name): the tile at \(rect) is not frame \(frame)")
        }
    }

    @Test func thePosterAndEveryThumbnailAreTheOutputsFramesFarmedOrNot() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=4")
            try Data(
                Self.project(
                    export: #"""
                        {"video": {"gop": 15}, "poster": {"time": "1.5", "format": "png"},
                         "thumbnails": {"every": "0.7", "width": 80, "columns": 4, "format": "png"}}
                        """#
                ).utf8
            ).write(to: dir.appendingPathComponent("project.json"))
            let data = dir.appendingPathComponent("farm-data").path
            for (name, mode) in [
                ("local", ["--local"]),
                ("farm", ["--workers", "2", "--data", data, "--no-dashboard"]),
                // Every chunk from the segment cache: the stills come from the cached segments.
                ("again", ["--workers", "2", "--data", data, "--no-dashboard"]),
            ] {
                let output = dir.appendingPathComponent("\(name).mp4")
                let result = try runFarm(["render", "project.json", "-o", output.path] + mode, in: dir)
                try #require(result.status == 0, "\(name): \(result.stderr)")
                if name == "again" {
                    #expect(result.stdout.contains("reused from the segment cache"), "\(result.stdout)")
                }
                #expect(
                    result.stdout.contains(
                        "beside it: \(name).poster.png, \(name).thumbnails.png, \(name).thumbnails.vtt"),
                    "\(result.stdout)")

                let poster = dir.appendingPathComponent("\(name).poster.png")
                #expect(
                    try Self.decodedPicture(poster) == Self.ffmpegFrame(output, frame: 45, width: 320, height: 240),
                    "\(name): the poster is not frame 45 of the output")

                try Self.checkThumbnails(beside: output)
            }
        }
    }

    /// On a farm, each worker makes the thumbnails its chunk holds from the segment it
    /// encoded; the join only lays them out (and decodes the poster).
    @Test func theWorkersMakeTheThumbnailsTheirChunksHold() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=4")
            let project = dir.appendingPathComponent("project.json")
            try Data(
                Self.project(
                    export: #"""
                        {"video": {"gop": 15},
                         "thumbnails": {"every": "0.7", "width": 80, "columns": 4, "format": "png"}}
                        """#
                ).utf8
            ).write(to: project)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mp4")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-seconds", "1", "--no-cache"])
            #expect(try farm.finish(job).state == .done, "\(farm.logs)")
            let log = farm.coordinator?.output ?? ""
            #expect(log.contains("job \(job): 6 of 6 stills made by the workers"), "\(log.suffix(2000))")
            try Self.checkThumbnails(beside: output)
        }
    }

    /// The documented rule of the preview's colours (docs/project-format.md): each channel to
    /// its palette level (6 red, 7 green, 6 blue) by a 4×4 ordered dither, as packed RGB.
    static func dithered(_ rgb: [UInt8], width: Int) -> [UInt8] {
        let bayer: [Double] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5].map { ($0 + 0.5) / 16 }
        var out = rgb
        for index in 0..<(rgb.count / 3) {
            let threshold = bayer[(index / width % 4) * 4 + index % width % 4]
            for (channel, levels) in [(0, 6), (1, 7), (2, 6)] {
                let level = min(
                    levels - 1, Int(Double(rgb[index * 3 + channel]) * Double(levels - 1) / 255 + threshold))
                out[index * 3 + channel] = UInt8((level * 255 + (levels - 1) / 2) / (levels - 1))
            }
        }
        return out
    }

    /// 2 s from 0.5 s at 10 pictures a second: 20 pictures, each the output's frame at its time
    /// (frame 15, 18, 21, …), 10 hundredths of a second each; the farm's the same bytes.
    @Test func thePreviewShowsTheOutputsFramesAtItsTimes() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=4")
            try Data(
                Self.project(
                    export: #"""
                        {"video": {"gop": 15}, "preview": {"start": "0.5", "duration": "2", "width": 160, "fps": "10"}}
                        """#
                ).utf8
            ).write(to: dir.appendingPathComponent("project.json"))
            for (name, mode) in [
                ("local", ["--local"]), ("farm", ["--workers", "2", "--data", "farm-data", "--no-dashboard"]),
            ] {
                let result = try runFarm(["render", "project.json", "-o", "\(name).mp4"] + mode, in: dir)
                try #require(result.status == 0, "\(name): \(result.stderr)")
            }
            let (local, farm) = (
                dir.appendingPathComponent("local.preview.gif"), dir.appendingPathComponent("farm.preview.gif")
            )
            #expect(try Data(contentsOf: local) == Data(contentsOf: farm))
            let durations = try run(
                "ffprobe", ["-v", "error", "-show_entries", "frame=pkt_duration", "-of", "csv=p=0", local.path]
            ).stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(durations == Array(repeating: "10", count: 20), "\(durations)")
            let all = try Self.decodedPicture(local)
            let size = 160 * 120 * 3
            try #require(all.count == 20 * size)
            for picture in 0..<20 {
                let frame = 15 + 3 * picture
                let expected = Self.dithered(
                    try Self.ffmpegFrame(
                        dir.appendingPathComponent("local.mp4"), frame: frame, width: 160, height: 120),
                    width: 160)
                #expect(
                    Array(all[(picture * size)..<((picture + 1) * size)]) == expected,
                    "picture \(picture) is not frame \(frame)")
            }
        }
    }

    @Test func jpegAndWebPStillsAreWrittenAtTheirSizesAndBadKeysAreRefusedByPath() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=4")
            try Data(
                Self.project(
                    export: #"""
                        {"poster": {"time": "9", "width": 160, "format": "webp"},
                         "thumbnails": {"every": "1", "width": 64, "columns": 3, "format": "jpeg"}}
                        """#
                ).utf8
            ).write(to: dir.appendingPathComponent("project.json"))
            let result = try runFarm(["render", "project.json", "-o", "out.mp4", "--local"], in: dir)
            try #require(result.status == 0, "\(result.stderr)")
            let probe = try run(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
                    "out.poster.webp",
                ],
                in: dir)
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "webp,160,120")
            let sheet = try run(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
                    "out.thumbnails.jpg",
                ],
                in: dir)
            // 4 thumbnails, 3 a row: two rows of 64x48 tiles.
            #expect(sheet.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,192,96")

            try Data(
                Self.project(
                    export: #"""
                        {"poster": {"time": "-1", "width": 15, "format": "gif"},
                         "thumbnails": {"every": "0.01", "columns": 0},
                         "preview": {"start": "-2", "duration": "60", "fps": "60", "width": 7}}
                        """#
                ).utf8
            ).write(to: dir.appendingPathComponent("bad.json"))
            let refused = try runFarm(["render", "bad.json", "-o", "bad.mp4", "--local"], in: dir)
            #expect(refused.status != 0)
            for line in [
                #"export.poster.format: "gif" is not one of jpeg, png, webp"#,
                "export.poster.time: must be 0 or more seconds",
                "export.poster.width: must be an even number from 16 to 8192 (got 15)",
                "export.thumbnails.every: must be at least 0.1 seconds",
                "export.thumbnails.columns: must be from 1 to 100 (got 0)",
                "export.preview.start: must be 0 or more seconds",
                "export.preview.duration: must be from 0.1 to 30 seconds (got 60)",
                "export.preview.fps: must be from 1 to 50 (got 60)",
                "export.preview.width: must be an even number from 16 to 8192 (got 7)",
            ] {
                #expect(refused.stderr.contains(line), "\(refused.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad.mp4").path))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad.poster.gif").path))
        }
    }
}

/// The stills of a job made over HTTP alone, read back over HTTP.
@Suite struct StillRoutesTests {
    @Test func aJobsStillsAreReadOverHTTPAndAStillNotAskedForIsNotFound() throws {
        try withTemporaryDirectory { dir in
            let (farm, base, token, _, out) = try PythonClientTests.startFarm(in: dir)
            defer { farm.stopAll() }
            let output = out.appendingPathComponent("promo.mp4").path
            let body = #"""
                {"output": "\#(output)", "project": {
                   "output": {"width": 96, "height": 64, "fps": "25"}, "assets": {},
                   "export": {"poster": {"time": "0.2", "format": "png"}, "thumbnails": {"every": "0.5", "width": 32},
                              "preview": {"duration": "0.4", "width": 48, "fps": "5"}},
                   "tracks": [{"kind": "video", "items": [{"solid": "#204080", "at": "0", "duration": "1"}]}]}}
                """#
            let submitted = try HTTPAPITests.call("POST", "\(base)/api/jobs", token: token, body: body)
            try #require(submitted.status == 201, "\(submitted.body)")
            let job = try JSONDecoder().decode(HTTPAppsTests.JobStatusID.self, from: Data(submitted.body.utf8)).id
            #expect(try farm.finish(job).state == .done, "\(farm.logs)")
            for (still, file) in [
                ("poster", "promo.poster.png"), ("thumbnails", "promo.thumbnails.jpg"),
                ("thumbnails.vtt", "promo.thumbnails.vtt"), ("preview", "promo.preview.gif"),
            ] {
                let saved = dir.appendingPathComponent("got-\(still)")
                let got = try run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", saved.path, "-w", "%{http_code} %{content_type}", "-H",
                        "Authorization: Bearer \(token)", "\(base)/api/jobs/\(job)/stills/\(still)",
                    ])
                #expect(got.stdout.hasPrefix("200 "), "\(still): \(got.stdout)")
                #expect(
                    try Data(contentsOf: saved) == Data(contentsOf: out.appendingPathComponent(file)),
                    "\(still) is not \(file)")
            }
            let unknown = try HTTPAPITests.call("GET", "\(base)/api/jobs/\(job)/stills/cover", token: token)
            #expect(unknown.status == 404 && unknown.body.contains("one of poster, thumbnails"), "\(unknown.body)")
            #expect(try HTTPAPITests.call("GET", "\(base)/api/jobs/\(job)/stills/poster").status == 401)
        }
    }
}
