import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// Rotation metadata: a phone-style clip stored landscape with a 90° display matrix is rendered
/// upright, pixel for pixel as ffmpeg's own autorotation shows it.
@Suite struct RotationTests {
    @Test(arguments: [90, 180, 270])
    func rotatedSourceRendersUpright(degrees: Int) throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("plain.mp4", in: dir, video: "testsrc2=size=160x96:rate=30:duration=1")
            // Stream copy is how FFmpeg writes the display matrix ("rotate" tag) into an MP4.
            try ffmpeg(["-i", "plain.mp4", "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", "r.mp4"], in: dir)
            let upright = degrees == 180 ? (160, 96) : (96, 160)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": \(upright.0), "height": \(upright.1), "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"r": {"path": "r.mp4"}},
                  "tracks": [{"kind": "video", "items": [{"asset": "r", "at": "0", "duration": "1"}]}]
                }
                """, in: dir)
            // FFmpeg's "rotate" tag and the display matrix disagree in sign across versions; what
            // matters is that the picture comes out the way ffmpeg's own autorotation shows it.
            #expect(loaded.media["r"]?.rotation ?? 0 != 0)
            let output = try render(loaded, to: "out.mkv", in: dir, audio: false)
            let expected = try frameHashes(dir.appendingPathComponent("r.mp4"), extra: ["-pix_fmt", "yuv420p"])
            #expect(expected.count == 30)
            #expect(try frameHashes(output) == expected)
        }
    }
}
