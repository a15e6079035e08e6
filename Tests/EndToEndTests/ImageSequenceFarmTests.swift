import Foundation
import TestSupport
import Testing

/// Numbered frames on the farm: a PNG-sequence output made by workers in 7-frame chunks is the
/// FFV1 render's frames, file for file, with a manifest `sha256sum -c` accepts; TIFF, DPX and
/// EXR frames from the farm are byte for byte one process's; an EXR plate sequence read by
/// workers is one process's render; an OTIO `ImageSequenceReference` imports to it; a bad
/// frame fails the render by its file and leaves no frame written.
@Suite(.serialized) struct ImageSequenceFarmTests {
    static func project(export: String, tracks: String) -> String {
        #"{"output": {"width": 320, "height": 180, "fps": "30"}, "export": \#(export), "assets": "#
            + #"{"a": {"path": "a.mp4"}, "p": {"path": "plates/p.%04d.exr", "firstFrame": 1001, "frameRate": "24"}}, "#
            + #""tracks": \#(tracks)}"#
    }

    /// 10 s: the clip, a picture-in-picture with an opacity ramp, and sound (which frames leave out).
    static let programme = #"""
        [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "10"}]},
         {"kind": "video", "items": [{"asset": "a", "at": "2", "duration": "5", "source": {"start": "4"},
           "frame": [0.55, 0.55, 0.4, 0.4], "opacity": {"keys": [["0", 0], ["2", 1]]}}]},
         {"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "10"}]}]
        """#

    static func makeMedia(in dir: URL) throws {
        try TestMedia.make(
            "a.mp4", in: dir, video: "testsrc2=size=480x270:rate=30:duration=10",
            audio: "sine=frequency=330:duration=10", extra: ["-shortest"])
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("plates"), withIntermediateDirectories: true)
        _ = try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=400x225:rate=24:duration=2", "-pix_fmt", "gbrpf32le", "-c:v",
                "exr", "-format", "half", "-start_number", "1001", "plates/p.%04d.exr",
            ], in: dir)
    }

    static func write(_ text: String, _ name: String, in dir: URL) throws {
        try Data(text.utf8).write(to: dir.appendingPathComponent(name))
    }

    /// The decoded pictures of `input` as packed RGB, converted by ffmpeg's `scale` from
    /// limited-range BT.709 as the farm converts its canvas for image frames.
    static func rgbFrames(_ input: [String], in dir: URL, width: Int = 320, height: Int = 180) throws -> [[UInt8]] {
        let raw = dir.appendingPathComponent("rgb-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ffmpeg(
            input + [
                "-vf", "scale=flags=bicubic+accurate_rnd+bitexact:in_color_matrix=bt709:in_range=tv:out_range=pc",
                "-pix_fmt", "rgb24", "-f", "rawvideo", raw.path,
            ], in: dir)
        let data = [UInt8](try Data(contentsOf: raw))
        let size = width * height * 3
        return stride(from: 0, to: data.count, by: size).map { Array(data[$0..<min($0 + size, data.count)]) }
    }

    @Test func aPNGSequenceOfA300FrameJobIn7FrameChunksIsTheFFV1RendersFrames() throws {
        try withTemporaryDirectory { dir in
            try Self.makeMedia(in: dir)
            try Self.write(
                Self.project(export: #"{"video": {"codec": "png"}}"#, tracks: Self.programme), "png.json", in: dir)
            try Self.write(
                Self.project(
                    export: #"{"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}}"#,
                    tracks: Self.programme), "ffv1.json", in: dir)
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent("frames"), withIntermediateDirectories: true)
            let farm = try runFarm(
                [
                    "render", "png.json", "-o", "frames/out.%06d.png", "--workers", "2", "--chunk-frames", "7",
                    "--no-cache", "--data", dir.appendingPathComponent("farm-data").path, "--no-dashboard",
                ], in: dir)
            try #require(farm.status == 0, "\(farm.stderr)")
            #expect(farm.stdout.contains("300 frames, 320x180 @ 30 fps, 10.000 s, png, "), "\(farm.stdout)")
            #expect(farm.stdout.contains("43 video chunks and 0 audio blocks"), "\(farm.stdout)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path)
            let pictures = names.filter { $0.hasSuffix(".png") }.sorted()
            #expect(pictures.count == 300 && pictures.first == "out.000001.png" && pictures.last == "out.000300.png")
            #expect(names.sorted() == pictures + ["out.sha256"], "only the frames and their manifest: \(names)")
            let check = try run("sha256sum", ["-c", "out.sha256"], in: dir.appendingPathComponent("frames"))
            #expect(check.status == 0 && check.stdout.components(separatedBy: ": OK\n").count == 301, "\(check.stdout)")

            // The QC: the frames the manifest lists, each on disk, every chunk's first among them.
            let qc = try runFarm(["qc", "1", "--data", dir.appendingPathComponent("farm-data").path], in: dir)
            #expect(qc.stdout.contains("video     png 320x180 rgb24 30/1 fps, 300 frames"), "\(qc.stdout)\(qc.stderr)")
            #expect(qc.stdout.contains("seams     43 checked, every one continuous"), "\(qc.stdout)")
            let reference = try runFarm(["render", "ffv1.json", "-o", "reference.mkv", "--local"], in: dir)
            try #require(reference.status == 0, "\(reference.stderr)")
            let expected = try Self.rgbFrames(["-i", "reference.mkv"], in: dir)
            let frames = try Self.rgbFrames(["-i", "frames/out.%06d.png"], in: dir)
            #expect(expected.count == 300 && frames.count == 300)
            let differing = zip(frames, expected).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(differing.isEmpty, "PNG frames differ from the FFV1 render's at \(differing)")

            // One process writes the same frames over them: the manifests are equal.
            let farmManifest = try Data(contentsOf: dir.appendingPathComponent("frames/out.sha256"))
            let again = try runFarm(["render", "png.json", "-o", "frames/out.%06d.png", "--local"], in: dir)
            try #require(again.status == 0, "\(again.stderr)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("frames/out.sha256")) == farmManifest)
        }
    }

    @Test func tiffDPXAndEXRFramesFromTheFarmAreOneProcesssByteForByte() throws {
        try withTemporaryDirectory { dir in
            try Self.makeMedia(in: dir)
            let tracks = #"[{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]"#
            for (codec, ext, format) in [
                ("tiff", "tif", "rgb24"), ("dpx", "dpx", "gbrp10le"), ("exr", "exr", "gbrpf32le"),
            ] {
                try Self.write(
                    Self.project(export: #"{"video": {"codec": "\#(codec)"}}"#, tracks: tracks), "\(codec).json",
                    in: dir)
                let local = try runFarm(
                    ["render", "\(codec).json", "-o", "local-\(codec).%03d.\(ext)", "--local"], in: dir)
                try #require(local.status == 0, "\(local.stderr)")
                let farm = try runFarm(
                    [
                        "render", "\(codec).json", "-o", "farm-\(codec).%03d.\(ext)", "--workers", "2",
                        "--chunk-frames",
                        "7", "--no-cache", "--data", dir.appendingPathComponent("farm-data").path, "--no-dashboard",
                    ], in: dir)
                try #require(farm.status == 0, "\(farm.stderr)")
                #expect(local.stdout.contains(", \(codec), "), "\(local.stdout)")
                let manifests = try ["local", "farm"].map {
                    try String(contentsOf: dir.appendingPathComponent("\($0)-\(codec).sha256"), encoding: .utf8)
                        .replacingOccurrences(of: "  \($0)-", with: "  ")
                }
                #expect(manifests[0].split(separator: "\n").count == 30)
                #expect(manifests[0] == manifests[1], "\(codec): the farm's frames are not one process's")
                let probed = try probe(
                    dir.appendingPathComponent("farm-\(codec).001.\(ext)"),
                    ["-show_entries", "stream=codec_name,pix_fmt"])
                let stream = (probed["streams"] as? [[String: Any]])?.first
                #expect(stream?["pix_fmt"] as? String == format, "\(codec): \(String(describing: stream))")
            }
        }
    }

    @Test func anEXRPlateOnTheFarmIsOneProcesssAndAnOTIOSequenceImportsToIt() throws {
        try withTemporaryDirectory { dir in
            try Self.makeMedia(in: dir)
            let tracks = #"""
                [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "2"}]},
                 {"kind": "video", "items": [{"asset": "p", "at": "0.5", "duration": "1.4", "source": {"start": "0.3"},
                   "frame": [0.1, 0.1, 0.5, 0.5]}]}]
                """#
            let export = #"{"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}}"#
            try Self.write(Self.project(export: export, tracks: tracks), "plate.json", in: dir)
            let local = try runFarm(["render", "plate.json", "-o", "local.mkv", "--local"], in: dir)
            try #require(local.status == 0, "\(local.stderr)")
            let farm = try runFarm(
                [
                    "render", "plate.json", "-o", "farm.mkv", "--workers", "2", "--chunk-frames", "7", "--no-cache",
                    "--data", dir.appendingPathComponent("farm-data").path, "--no-dashboard",
                ], in: dir)
            try #require(farm.status == 0, "\(farm.stderr)")
            let frames = try ["local.mkv", "farm.mkv"].map {
                try decodedYUV(dir.appendingPathComponent($0), width: 320, height: 180)
            }
            #expect(frames[0].count == 60 && frames[0] == frames[1], "the farm's plate render is not one process's")

            let otio = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip(
                                "plate",
                                reference: #"""
                                    {"OTIO_SCHEMA": "ImageSequenceReference.1", "target_url_base": "plates/",
                                     "name_prefix": "p.", "name_suffix": ".exr", "start_frame": 1001, "frame_step": 1,
                                     "rate": 24, "frame_zero_padding": 4}
                                    """#, source: (6, 24))
                        ])
                ], rate: "24")
            try Self.write(otio, "cut.otio", in: dir)
            let imported = try runFarm(["import", "cut.otio", "-o", "cut.json"], in: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let text = try String(contentsOf: dir.appendingPathComponent("cut.json"), encoding: .utf8)
            #expect(text.contains(#""path": "plates/p.%04d.exr""#) && text.contains(#""firstFrame": 1001"#), "\(text)")
            let validated = try runFarm(["validate", "cut.json"], in: dir)
            #expect(
                validated.status == 0 && validated.stdout.contains("ok, 24 frames"),
                "\(validated.stdout)\(validated.stderr)")
        }
    }

    @Test func aBadFrameFailsTheRenderByItsFileAndLeavesNoFrameWritten() throws {
        try withTemporaryDirectory { dir in
            try Self.makeMedia(in: dir)
            try Data("not an image".utf8).write(to: dir.appendingPathComponent("plates/p.1020.exr"))
            let tracks = #"[{"kind": "video", "items": [{"asset": "p", "at": "0", "duration": "1.5"}]}]"#
            try Self.write(Self.project(export: #"{"video": {"codec": "png"}}"#, tracks: tracks), "bad.json", in: dir)
            let failed = try runFarm(["render", "bad.json", "-o", "out.%04d.png", "--local"], in: dir)
            #expect(failed.status != 0 && failed.stderr.contains("plates/p.1020.exr"), "\(failed.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.hasPrefix("out") || $0.hasPrefix(".out")
            }
            #expect(left.isEmpty, "frames left behind: \(left)")
        }
    }
}
