import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Time maps, freeze frames and reverse play on a source whose luma says its frame number and
/// whose sound is a ramp (t / 10), against the frames and samples the documented map gives.
@Suite struct TimeRemapTests {
    static func makeSource(in dir: URL) throws {
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "color=gray:size=64x64:rate=30:duration=3,geq=lum='3*N':cb=128:cr=128",
                "-f", "lavfi", "-i", "aevalsrc=t/10|t/10:s=48000:d=3", "-c:v", "ffv1", "-g", "10", "-pix_fmt",
                "yuv420p",
                "-c:a", "pcm_s16le", "numbered.mkv",
            ], in: dir)
    }

    static func project(_ item: String, duration: String) -> String {
        """
        {
          "output": {"width": 64, "height": 64, "fps": "30"},
          "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {"n": {"path": "numbered.mkv"}},
          "tracks": [{"kind": "video", "items": [{"asset": "n", "at": "0", "duration": "\(duration)", \(item)}]}]
        }
        """
    }

    /// Renders and returns the media frame number each output frame shows, and the first
    /// channel's samples.
    static func shown(_ json: String, in dir: URL) throws -> (frames: [Int], samples: [Float]) {
        let file = try render(try loadProject(json, in: dir), to: "out.mkv", in: dir)
        let frames = try decodedYUV(file, width: 64, height: 64).map {
            Int((Double(pixel($0, width: 64, height: 64, x: 32, y: 32).0) / 3).rounded())
        }
        return (frames, try firstChannelSamples(file))
    }

    @Test func speedRampShowsTheMappedFrames() throws {
        try withTemporaryDirectory { dir in
            try Self.makeSource(in: dir)
            let result = try Self.shown(
                Self.project(#""timeMap": [["0", "0"], ["1", "1"], ["3", "1.5"], ["4", "2.5"]]"#, duration: "4"),
                in: dir)
            // 1x for 1 s, 0.25x for 2 s (each media frame shown four times), then 1x again.
            let expected = (0..<120).map { n in n < 30 ? n : n < 90 ? 30 + (n - 30) / 4 : 45 + (n - 90) }
            #expect(result.frames == expected)
            #expect(result.samples.count == 4 * 48000)
            // The sound follows the map: sample n of the timeline plays media time map(n / 48000).
            for n in stride(from: 0, to: 4 * 48000, by: 4801) {
                let t = Double(n) / 48000
                let media = t < 1 ? t : t < 3 ? 1 + (t - 1) / 4 : 1.5 + (t - 3)
                #expect(abs(Double(result.samples[n]) - media / 10) < 2e-3, "sample \(n): \(result.samples[n])")
            }
        }
    }

    @Test func freezeHoldsOneFrameInSilence() throws {
        try withTemporaryDirectory { dir in
            try Self.makeSource(in: dir)
            let result = try Self.shown(Self.project(#""freeze": "1""#, duration: "1.5"), in: dir)
            #expect(result.frames == Array(repeating: 30, count: 45))
            #expect(result.samples.count == 72000)
            #expect(result.samples.allSatisfy { $0 == 0 })
        }
    }

    @Test func reversePlaysFramesAndSoundBackwards() throws {
        try withTemporaryDirectory { dir in
            try Self.makeSource(in: dir)
            let json = Self.project(#""reverse": true, "source": {"start": "0.5", "duration": "2"}"#, duration: "2")
            let result = try Self.shown(json, in: dir)
            // Media frames 15 ..< 75 backwards: n, n - 1, ... from the range's last frame.
            #expect(result.frames == (0..<60).map { 74 - $0 })
            #expect(result.samples.count == 2 * 48000)
            // Falling sound over the reversed span (its last frame's worth is held, so silent).
            for n in stride(from: 0, to: 2 * 48000 - 1600, by: 4801) {
                let media = 2.5 - 1.0 / 30 - Double(n) / 48000
                #expect(abs(Double(result.samples[n]) - media / 10) < 2e-3, "sample \(n): \(result.samples[n])")
            }
            // Going backwards reuses decoded frames; starting fresh at every frame must agree.
            let loaded = try loadProject(json, in: dir)
            let whole = try frameHashes(try render(loaded, to: "whole.mkv", in: dir, audio: false))
            var chunked: [String] = []
            for n: Int64 in 0..<60 {
                chunked += try frameHashes(try render(loaded, to: "\(n).mkv", in: dir, frames: n..<n + 1, audio: false))
            }
            #expect(chunked == whole)
        }
    }
}
