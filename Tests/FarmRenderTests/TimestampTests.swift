import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// The written file's streams: frame count, frame-grid timestamps, exact audio length, start at 0.
@Suite struct TimestampTests {
    @Test(arguments: ["out.mp4", "out.mov"])
    func streamsAreExact(name: String) throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=320x240:rate=25:duration=3",
                audio: "sine=frequency=330:duration=3")
            try TestMedia.make("music.wav", in: dir, audio: "sine=frequency=550:duration=5")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 320, "height": 240, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
                  "assets": {"a": {"path": "a.mp4"}, "music": {"path": "music.wav"}},
                  "tracks": [
                    {"kind": "video", "items": [{"asset": "a", "at": "0.2", "duration": "2.5",
                      "source": {"start": "0.3"}}]},
                    {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "2.9"}]}
                  ]
                }
                """, in: dir)
            let frames = loaded.project.frameCount
            #expect(frames == 87)
            let output = try render(loaded, to: name, in: dir)
            let info = try probe(output, ["-count_frames", "-show_streams"])
            let streams = try #require(info["streams"] as? [[String: Any]])
            let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
            let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
            #expect(video["nb_read_frames"] as? String == "\(frames)")
            #expect(video["start_time"] as? String == "0.000000")
            #expect(audio["start_time"] as? String == "0.000000")
            #expect(audio["duration_ts"] as? Int == Int(frames) * 48000 / 30)

            // Every timestamp is frame n at exactly n / 30 s.
            let grid = (0..<frames).map { Rational($0, 30) }
            #expect(try videoPacketTimes(output) == grid)
        }
    }
}
