import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// 44.1 kHz sound read from the middle of an item, resampled to 48 kHz: after the seek the
/// resampler starts on its phase grid (`ResamplerPhase`), so the sound equals ffmpeg's decode of
/// the whole file through the same resampler, not a fraction of a sample late.
@Suite struct ResampledSeekTests {
    @Test(arguments: ["wav", "flac"])
    func soundFromTheMiddleOfA44kFileIsTheWholeDecodesResampled(container: String) throws {
        try withTemporaryDirectory { dir in
            // A high tone over noise: a tenth of a sample's delay moves it by hundreds of levels.
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*9000*t)|0.4*sin(2*PI*7000*t):s=44100:d=5",
                    "-f", "lavfi", "-i", "anoisesrc=a=0.1:r=44100:d=5:seed=7",
                    "-filter_complex", "[1]pan=stereo|c0=c0|c1=c0[n];[0][n]amix=inputs=2:normalize=0",
                    "-ar", "44100", "source.\(container)",
                ], in: dir)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 36, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
                  "export": {"container": "mov", "audio": {"codec": "pcm"}},
                  "assets": {"s": {"path": "source.\(container)"}},
                  "tracks": [{"kind": "audio", "items": [
                    {"asset": "s", "at": "0", "duration": "3", "source": {"start": "1.3037"}}]}]
                }
                """, in: dir)
            let (whole, chunked) = try renderWholeAndChunked(loaded, in: dir, ext: "mov", seconds: Rational(1))
            let sound = try SurroundSources.decoded(whole)
            #expect(sound == (try SurroundSources.decoded(chunked)), "chunks differ from the whole render")

            // The whole file through libswresample in float, as the farm resamples, from 1.3037 s on.
            let fromStart = try SurroundSources.decoded(
                dir.appendingPathComponent("source.\(container)"),
                ["-af", "aresample=48000,aformat=sample_fmts=fltp"])
            // 1.3037 s is 62,577.6 output samples: the item starts at the nearest, 62,578; and the
            // seek lands off the resampler's phase grid (every 147 input samples, 10 ms).
            let first = 62578 * 2
            let expected = Array(fromStart[first..<(first + 3 * 48000 * 2)])
            #expect(sound.count == expected.count)
            let worst = zip(sound, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 2, "up to \(worst) from the whole file's decode")
        }
    }
}
