import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Rectangles that touch in the project touch on the canvas: both edges snap to the even-pixel
/// grid and the width follows, so no background shows between tiles.
@Suite struct LayerTilingTests {
    @Test func sevenTilesAcrossAThousandPixelsLeaveNoGap() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "white.mkv", in: dir, video: "color=white:size=64x64:rate=30:duration=1", codec: ["-c:v", "ffv1"])
            let tracks = (0..<7).map { k in
                "{\"kind\": \"video\", \"items\": [{\"asset\": \"white\", \"at\": \"0\", \"duration\": \"0.1\", "
                    + "\"fit\": \"stretch\", \"frame\": [\(Double(k) / 7), 0, \(1.0 / 7), 1]}]}"
            }
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 1000, "height": 16, "fps": "30", "background": "#000000"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"white": {"path": "white.mkv"}},
                  "tracks": [\(tracks.joined(separator: ",\n"))]
                }
                """, in: dir)
            let frame = try #require(
                try decodedYUV(try render(loaded, to: "out.mkv", in: dir, audio: false), width: 1000, height: 16).first)
            let gaps = (0..<1000).filter { pixel(frame, width: 1000, height: 16, x: $0, y: 8).0 < 200 }
            #expect(gaps.isEmpty, "background shows at columns \(gaps)")
        }
    }
}
