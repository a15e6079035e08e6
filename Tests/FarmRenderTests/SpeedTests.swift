import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Speed changes pick source frames by exact time: 2x shows every other frame, 0.5x each twice.
@Suite struct SpeedTests {
    /// The frame number each output frame shows, read from the numbered source's grey level.
    func shownFrames(speedSourceDuration: String, itemDuration: String) throws -> [Int] {
        try withTemporaryDirectory { dir in
            try TestMedia.numbered("n.mkv", in: dir, frames: 60)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"n": {"path": "n.mkv"}},
                  "tracks": [{"kind": "video", "items": [
                    {"asset": "n", "at": "0", "duration": "\(itemDuration)",
                      "source": {"start": "0", "duration": "\(speedSourceDuration)"}}
                  ]}]
                }
                """, in: dir)
            let output = try render(loaded, to: "out.mkv", in: dir, audio: false)
            return try decodedYUV(output, width: 64, height: 64).map {
                Int(pixel($0, width: 64, height: 64, x: 32, y: 32).0) / 3
            }
        }
    }

    @Test func doubleSpeedShowsEveryOtherFrame() throws {
        let shown = try shownFrames(speedSourceDuration: "2", itemDuration: "1")
        #expect(shown == (0..<30).map { 2 * $0 })
    }

    @Test func halfSpeedRepeatsEachFrameTwice() throws {
        let shown = try shownFrames(speedSourceDuration: "1", itemDuration: "2")
        #expect(shown == (0..<60).map { $0 / 2 })
    }
}
