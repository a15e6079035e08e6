import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// FFV1, the archive codec, renders level 3 and lossless through both ways of rendering; and an
/// encoder that refuses a setting is a one-line error, never a crash or a half-written file.
@Suite struct EncoderSettingsTests {
    /// 30 frames with a cut and a picture-in-picture, on `export`.
    static func project(export: String, in dir: URL) throws -> URL {
        try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=96x64:rate=30:duration=2")
        try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=64x96:rate=30:duration=2")
        let file = dir.appendingPathComponent("project.json")
        try Data(
            """
            {
              "output": {"width": 64, "height": 48, "fps": "30"},
              "export": \(export),
              "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
              "tracks": [
                {"kind": "video", "items": [
                  {"asset": "a", "at": "0", "duration": "0.5"}, {"asset": "b", "at": "0.5", "duration": "0.5"}]},
                {"kind": "video", "items": [{"asset": "b", "at": "0.2", "duration": "0.6", "source": {"start": "1"},
                  "frame": [0.5, 0.5, 0.4, 0.4], "opacity": {"keys": [["0", 0.2], ["0.6", 1]]}}]}
              ]
            }
            """.utf8
        ).write(to: file)
        return file
    }

    @Test(arguments: [
        #"{"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}}"#, #"{"preset": "archive-ffv1"}"#,
    ])
    func ffv1IsLevelThreeAndLosslessLocallyAndOnTheFarmInSevenFrameChunks(export: String) throws {
        try withTemporaryDirectory { dir in
            let project = try Self.project(export: export, in: dir)
            // The lossless reference: the same timeline through another lossless encoder.
            var loaded = try ProjectLoader().load(file: project.path)
            loaded.project.export.video.codec = .h264
            loaded.project.export.video.lossless = true
            loaded.project.export.video.preset = "ultrafast"
            let reference = try frameHashes(try render(loaded, to: "reference.mkv", in: dir, audio: false))
            #expect(reference.count == 30 && Set(reference).count > 20)

            let local = try runFarm(["render", "project.json", "-o", "local.mkv", "--local"], in: dir)
            #expect(local.status == 0, "\(local.stderr)")
            let farmed = try runFarm(
                ["render", "project.json", "-o", "farm.mkv", "--chunk-frames", "7", "--data", "farm"], in: dir)
            #expect(farmed.status == 0, "\(farmed.stderr)")
            #expect(farmed.stdout.contains("rendered 5 video chunks"), "\(farmed.stdout)")
            for name in ["local.mkv", "farm.mkv"] {
                let file = dir.appendingPathComponent(name)
                let header = try run("ffprobe", ["-v", "error", "-debug", "pict", "-show_streams", file.path]).stderr
                #expect(header.contains("global: ver:3"), "\(name): \(header.prefix(300))")
                #expect(try frameHashes(file) == reference, "\(name)")
            }
        }
    }

    /// Encoder options the encoder refuses, when it is configured (FFV1 has no context 7) and when
    /// it opens (x264's baseline profile has no lossless mode): `validate`, `render --local` and
    /// `render` each exit 2 with one line naming the option, and no output appears.
    @Test(arguments: [
        (
            #"{"container": "mkv", "video": {"codec": "ffv1", "encoderOptions": {"context": 7}}}"#,
            "export.video.encoderOptions: ffv1 option context=7: "
                + "Value 7.000000 for parameter 'context' out of range [0 - 1]"
        ),
        (
            #"{"container": "mkv", "video": {"codec": "h264", "lossless": true, "#
                + #""encoderOptions": {"profile": "baseline"}}}"#,
            "export.video.encoderOptions: open encoder libx264: Error setting profile baseline"
        ),
    ])
    func aRefusedEncoderOptionIsOneLineAndNoFile(export: String, message: String) throws {
        try withTemporaryDirectory { dir in
            _ = try Self.project(export: export, in: dir)
            for arguments in [
                ["validate", "project.json"], ["render", "project.json", "-o", "out.mkv", "--local"],
                ["render", "project.json", "-o", "out.mkv", "--data", "farm"],
            ] {
                let result = try runFarm(arguments, in: dir)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                // libx264 also prints its own reason, straight to standard error, as the ffmpeg
                // program shows it; the farm's own report is the one line naming the project.
                let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("x264 [error]") }
                #expect(lines.count == 1, "\(arguments): \(result.stderr)")
                #expect(lines.first?.hasPrefix("project.json: \(message)") == true, "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("crashed"), "\(arguments): \(result.stderr)")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("out") }
            #expect(left.isEmpty, "\(left)")
        }
    }
}
