import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// `preservePitch`: a tone played at 0.5x and 2x keeps its frequency (tape-style it would halve
/// or double), the sample count stays exact, and a render that starts mid-item gives the same
/// samples as the whole render.
@Suite struct PitchTests {
    /// Frequency from rising zero crossings over `samples`.
    static func frequency(_ samples: ArraySlice<Float>, rate: Double) -> Double {
        var crossings: [Int] = []
        var previous = samples.first ?? 0
        for (index, value) in zip(samples.indices, samples) {
            if previous < 0 && value >= 0 { crossings.append(index) }
            previous = value
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * rate / Double(last - first)
    }

    @Test(arguments: [("2", false, 220.0), ("2", true, 440.0), ("8", true, 440.0)])
    func toneKeepsItsPitch(sourceSeconds: String, preserve: Bool, expected: Double) throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("tone.wav", in: dir, audio: "sine=frequency=440:sample_rate=48000:duration=9")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"tone": {"path": "tone.wav"}},
                  "tracks": [{"kind": "audio", "items": [{"asset": "tone", "at": "0", "duration": "4",
                    "source": {"duration": "\(sourceSeconds)"}, "preservePitch": \(preserve)}]}]
                }
                """, in: dir)
            let whole = try render(loaded, to: "whole.mkv", in: dir)
            let samples = try firstChannelSamples(whole)
            #expect(samples.count == 4 * 48000)
            let measured = Self.frequency(samples[48000..<3 * 48000], rate: 48000)
            #expect(abs(measured - expected) < expected * 0.01, "measured \(measured) Hz, expected \(expected) Hz")
            let tail = try firstChannelSamples(try render(loaded, to: "tail.mkv", in: dir, frames: 37..<120))
            #expect(Array(samples[(37 * 1600)...]) == tail, "a render starting mid-item gives the same samples")
        }
    }
}
