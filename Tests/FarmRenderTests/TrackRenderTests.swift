import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// A track's opacity multiplies its items', and a hidden track draws nothing.
@Suite struct TrackRenderTests {
    @Test func trackOpacityMultipliesAndHiddenTracksDrawNothing() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "white.mkv", in: dir, video: "color=white:size=64x64:rate=30:duration=1", codec: ["-c:v", "ffv1"])
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30", "background": "#000000"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"white": {"path": "white.mkv"}},
                  "tracks": [
                    {"kind": "video", "opacity": 0.5, "mode": "sequence",
                     "items": [{"asset": "white", "duration": "0.5", "opacity": 0.8}]},
                    {"kind": "video", "hidden": true, "items": [{"asset": "white", "at": "0", "duration": "0.5"}]}
                  ]
                }
                """, in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 64, height: 64)
            #expect(frames.count == 15)
            // 0.5 × 0.8 = 0.4 opacity: a = round(0.4 × 255) = 102 of white (235) over black (16).
            let expected = 16 + (235 - 16) * 102 / 255
            for frame in frames {
                let luma = pixel(frame, width: 64, height: 64, x: 20, y: 40).0
                #expect(abs(luma - expected) <= 1, "luma \(luma), expected \(expected)")
            }
        }
    }
}
