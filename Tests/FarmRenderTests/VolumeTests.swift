import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Volume keyframes: a sine ramped from 1 to 0 has the expected level at three points (astats).
@Suite struct VolumeTests {
    /// RMS level in dB of `file` between `start` and `end` seconds, as ffmpeg's astats reports it.
    func rmsLevel(_ file: URL, from start: Double, to end: Double) throws -> Double {
        let result = try run(
            "ffmpeg",
            [
                "-hide_banner", "-nostdin", "-i", file.path, "-map", "0:a", "-af",
                "atrim=start=\(start):end=\(end),astats=measure_perchannel=none",
                "-f", "null", "-",
            ])
        let line = try #require(result.stderr.split(separator: "\n").last { $0.contains("RMS level dB") })
        return try #require(Double(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
    }

    @Test func volumeRampFollowsItsKeyframes() throws {
        try withTemporaryDirectory { dir in
            let sine = try TestMedia.make("sine.wav", in: dir, audio: "sine=frequency=440:sample_rate=48000:duration=3")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30", "audio": {"sampleRate": 48000, "channels": 1}},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"sine": {"path": "sine.wav"}},
                  "tracks": [{"kind": "audio", "items": [
                    {"asset": "sine", "at": "0", "duration": "2", "volume": {"keys": [["0", 1], ["2", 0]]}}
                  ]}]
                }
                """, in: dir)
            let output = try render(loaded, to: "out.mkv", in: dir)
            let reference = try rmsLevel(sine, from: 0.45, to: 0.55)
            for (time, gain) in [(0.5, 0.75), (1.0, 0.5), (1.5, 0.25)] {
                let level = try rmsLevel(output, from: time - 0.05, to: time + 0.05)
                let expected = reference + 20 * log10(gain)
                #expect(abs(level - expected) < 0.2, "at \(time) s: \(level) dB, expected \(expected) dB")
            }
            // Sample count is exact: 2 s at 48 kHz.
            #expect(try decodedSampleCount(output) == 96000)
        }
    }
}
