import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Sound of a channel count FFmpeg has no layout for (14 channels, as ADM broadcast WAVs and
/// field recorders write them) plays as the mono sum of its channels (docs/media.md, "Sound"):
/// whole and chunked renders are the same sound, and both are ffmpeg's `pan` filter with those
/// gains (`ffmpeg -ac 2` itself refuses such a file).
@Suite struct UnpositionedChannelsTests {
    static let channels = 14

    @Test(arguments: [2, 6])
    func fourteenChannelsWithNoLayoutPlayAsTheirMonoSum(outputChannels: Int) throws {
        try withTemporaryDirectory { dir in
            // Each channel its own tone and level, so a channel dropped or doubled shows.
            let tones = (0..<Self.channels).map { "\(0.04 * Double(1 + $0 % 3))*sin(2*PI*\(200 + 70 * $0)*t)" }
            let source = try TestMedia.make(
                "field.wav", in: dir, audio: "aevalsrc=\(tones.joined(separator: "|")):s=48000:d=4")
            let probed = try run(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=channels,channel_layout", "-of", "csv=p=0", source.path,
                ]
            ).stdout
            try #require(probed.trimmingCharacters(in: .whitespacesAndNewlines) == "14,unknown", "\(probed)")

            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 36, "fps": "30",
                    "audio": {"sampleRate": 48000, "channels": \(outputChannels)}},
                  "export": {"container": "mov", "audio": {"codec": "pcm"}},
                  "assets": {"field": {"path": "field.wav"}},
                  "tracks": [{"kind": "audio", "items": [
                    {"asset": "field", "at": "0", "duration": "3", "source": {"start": "0.5"}}]}]
                }
                """, in: dir)
            let (whole, chunked) = try renderWholeAndChunked(loaded, in: dir, ext: "mov", seconds: Rational(1))
            let localSound = try SurroundSources.decoded(whole)
            #expect(localSound == (try SurroundSources.decoded(chunked)), "chunks differ from the whole render")

            // ffmpeg's pan: every channel at 1/14 into mono's place (-3 dB on each side of
            // stereo, the centre of 5.1), from the item's 0.5 s on.
            let gain = (outputChannels == 2 ? 0.5.squareRoot() : 1) / Double(Self.channels)
            let sum = (0..<Self.channels).map { "\(gain)*c\($0)" }.joined(separator: "+")
            let pan = outputChannels == 2 ? "pan=stereo|c0=\(sum)|c1=\(sum)" : "pan=5.1|c2=\(sum)"
            let oracle = try SurroundSources.decoded(source, ["-af", pan])
            let first = 24000 * outputChannels
            let expected = Array(oracle[first..<(first + 3 * 48000 * outputChannels)])
            #expect(localSound.count == expected.count)
            let worst = zip(localSound, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 1, "up to \(worst) from ffmpeg's pan")
            // Not silence: the mix carries every tone.
            #expect(localSound.map { abs(Int($0)) }.max() ?? 0 > 1000)
        }
    }
}
