import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// AAC's perceptual noise substitution (PNS) codes a noisy band as its energy alone; FFmpeg's
/// decoder fills it from a random generator that runs from where decoding began. So no pre-roll
/// makes a sound decoded from the middle of such a stream equal its decode from the start, in
/// the farm or in ffmpeg (`-ss`). What holds, and what docs/media.md promises: a chunked render
/// equals the whole render (every audio block is the same decode wherever it runs), and against
/// ffmpeg's decode of the whole file every 100 ms keeps its level within 0.25 dB.
@Suite struct NoiseSubstitutionTests {
    @Test func soundWithSubstitutedNoiseKeepsItsLevelFromAnyStart() throws {
        try withTemporaryDirectory { dir in
            // Pink noise under a tone at 48 kbit/s: FFmpeg's encoder substitutes the noisy bands.
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "anoisesrc=a=0.3:c=pink:r=48000:d=6:seed=3", "-f", "lavfi", "-i",
                    "sine=f=440:r=48000:d=6", "-filter_complex",
                    "[0][1]amix=inputs=2:normalize=0,pan=stereo|c0=c0|c1=c0", "-c:a", "aac", "-b:a", "48k",
                    "-aac_pns", "1", "noisy.m4a",
                ], in: dir)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 36, "fps": "25", "audio": {"sampleRate": 48000, "channels": 2}},
                  "export": {"container": "mov", "audio": {"codec": "pcm"}},
                  "assets": {"n": {"path": "noisy.m4a"}},
                  "tracks": [{"kind": "audio", "items": [
                    {"asset": "n", "at": "0", "duration": "3", "source": {"start": "2.5"}}]}]
                }
                """, in: dir)
            let (whole, chunked) = try renderWholeAndChunked(loaded, in: dir, ext: "mov", seconds: Rational(1))
            let sound = try SurroundSources.decoded(whole)
            #expect(sound == (try SurroundSources.decoded(chunked)), "chunks differ from the whole render")

            let fromStart = try SurroundSources.decoded(dir.appendingPathComponent("noisy.m4a"))
            let first = 120_000 * 2
            let expected = Array(fromStart[first..<(first + 3 * 48000 * 2)])
            #expect(sound.count == expected.count)
            // Samples differ: the substituted noise is another draw (the test's premise).
            let differing = zip(sound, expected).filter { abs(Int($0) - Int($1)) > 2 }.count
            #expect(differing > sound.count / 10, "\(differing) of \(sound.count) samples differ")
            let window = 4800 * 2
            func level(_ samples: ArraySlice<Int16>) -> Double {
                10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count))
            }
            var worst = 0.0
            for start in stride(from: 0, to: sound.count - window + 1, by: window) {
                let range = start..<(start + window)
                worst = max(worst, abs(level(sound[range]) - level(expected[range])))
            }
            #expect(worst <= 0.25, "a 100 ms window's level is \(worst) dB from the whole file's decode")
        }
    }
}
