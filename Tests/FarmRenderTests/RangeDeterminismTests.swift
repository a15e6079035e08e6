import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Rendering frames [0, N) at once or as [0, k) + [k, N) gives the same pictures: the property
/// that lets a farm split a timeline anywhere.
@Suite struct RangeDeterminismTests {
    @Test func splitRendersMatchTheWholeRender() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=4")
            try TestMedia.make("b.mp4", in: dir, video: "mandelbrot=size=240x180:rate=24", extra: ["-t", "4"])
            try ffmpeg(
                ["-f", "lavfi", "-i", "color=red@0.6:size=48x48,format=rgba", "-frames:v", "1", "logo.png"], in: dir)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 320, "height": 240, "fps": "30", "background": "#202040"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "logo": {"path": "logo.png"}},
                  "tracks": [
                    {"kind": "video", "items": [
                      {"asset": "a", "at": "0", "duration": "1", "source": {"start": "0.4", "duration": "2"}},
                      {"asset": "a", "at": "1", "duration": "1", "source": {"start": "1", "duration": "0.5"}}]},
                    {"kind": "video", "items": [
                      {"asset": "b", "at": "0.3", "duration": "1.4", "fit": "cover",
                       "frame": {"keys": [["0", [0.5, 0.5, 0.3, 0.3]], ["1.4", [0.1, 0.2, 0.45, 0.4]]]},
                       "crop": [0.1, 0.1, 0.8, 0.8], "opacity": {"keys": [["0", 0], ["0.7", 1]]}}]},
                    {"kind": "video", "items": [{"asset": "logo", "at": "0", "duration": "2",
                      "frame": [0.8, 0.05, 0.15, 0.2]}]}
                  ]
                }
                """, in: dir)
            let total = loaded.project.frameCount
            #expect(total == 60)
            let whole = try frameHashes(try render(loaded, to: "whole.mkv", in: dir, audio: false))
            #expect(whole.count == 60)
            #expect(Set(whole).count > 40, "the test timeline must change from frame to frame")
            for k: Int64 in [1, 9, 17, 30, 31, 59] {
                let head = try frameHashes(
                    try render(loaded, to: "head-\(k).mkv", in: dir, frames: 0..<k, audio: false))
                let tail = try frameHashes(
                    try render(loaded, to: "tail-\(k).mkv", in: dir, frames: k..<total, audio: false))
                #expect(head + tail == whole, "split at \(k)")
            }
        }
    }
}
