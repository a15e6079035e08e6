import Foundation
import TestSupport
import Testing

/// The output's extension picks the container: one that names no container the farm writes is
/// refused before anything renders, and one that differs from the project's container wins,
/// with a note.
@Suite struct OutputExtensionTests {
    @Test func anUnknownOrMissingExtensionIsRefusedAndADifferentOneWins() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=64x48:rate=30:duration=1")
            try Data(
                """
                {"output": {"width": 64, "height": 48, "fps": "30"}, "export": {"preset": "archive-ffv1"},
                 "assets": {"clip": {"path": "clip.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "0.2"}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("p.json"))
            for (output, message) in [
                (
                    "out.avi",
                    "out.avi: ends in .avi, which is no container the farm writes; use one of .mp4, .mov, .mkv, .m3u8"
                ),
                ("out.gif", "out.gif: ends in .gif, which is no container the farm writes"),
                ("out", "out: has no extension; use one of .mp4, .mov, .mkv, .m3u8"),
            ] {
                for mode in [["--local"], ["--data", "farm"]] {
                    let result = try runFarm(["render", "p.json", "-o", output] + mode, in: dir)
                    #expect(result.status == 2, "\(output) \(mode): \(result.stderr)")
                    #expect(result.stderr.contains(message), "\(output) \(mode): \(result.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(output).path))
                }
            }
            let mov = try runFarm(["render", "p.json", "-o", "out.mov", "--local"], in: dir)
            #expect(mov.status == 0, "\(mov.stderr)")
            #expect(mov.stderr.contains("note: writing mov as out.mov asks (p.json: export.container is mkv)"))
            let info = try probe(dir.appendingPathComponent("out.mov"), ["-show_format"])
            let tags = (info["format"] as? [String: Any])?["tags"] as? [String: Any]
            #expect(tags?["major_brand"] as? String == "qt  ", "\(info)")
            // MP4 cannot hold FFV1 or PCM: the extension decides, and the codecs are checked against it.
            let mp4 = try runFarm(["render", "p.json", "-o", "out.mp4", "--local"], in: dir)
            #expect(mp4.status == 2)
            #expect(
                mp4.stderr.contains("p.json: export.video.codec: ffv1 needs a .mov or .mkv output"), "\(mp4.stderr)")
        }
    }
}
