import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// A chunk's progress counts the frames its encoder has handed back, not those composited:
/// x264 holds up to its look-ahead (40 frames at `medium`, 60 at `veryslow`) before it writes
/// any, and a chunk showed 60/60 for ten seconds while it was still encoding.
@Suite struct EncodedProgressTests {
    @Test func progressWaitsForTheEncodersLookAheadAndEndsAtEveryFrame() throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 160, "height": 90, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "preset": "veryslow", "gop": 60}},
                  "assets": {},
                  "tracks": [{"kind": "video", "items": [
                    {"gradient": {"colors": ["#000000", "#FFFFFF"]}, "at": "0", "duration": "2"}]}]
                }
                """, in: dir)
            var configuration = TimelineRenderer.Configuration()
            configuration.includeAudio = false
            configuration.encoderThreads = 1
            var reported: [Int64] = []
            try TimelineRenderer(loaded: loaded, configuration: configuration)
                .render(frames: 0..<60, to: dir.appendingPathComponent("out.mkv")) { reported.append($0.framesDone) }
            // After 30 of 60 frames went in, none had come out encoded yet.
            #expect(reported.count >= 60)
            #expect(reported[29] < 30)
            #expect(reported == reported.sorted())
            #expect(reported.last == 60)
        }
    }
}
