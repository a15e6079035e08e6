import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// Sound cut out of a compressed source is the source's own sound from the first sample, and a
/// speed too slow for sound is a validation error, not a crash.
@Suite struct TrimmedSoundTests {
    @Test func aCutIntoAnAACSourceIsSampleExact() throws {
        try withTemporaryDirectory { dir in
            let source = try TestMedia.make(
                "tone.m4a", in: dir, audio: "sine=frequency=440:sample_rate=48000:duration=5",
                extra: ["-c:a", "aac", "-b:a", "128k", "-af", "volume=-12dB"])
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30", "audio": {"sampleRate": 48000, "channels": 1}},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"tone": {"path": "tone.m4a"}},
                  "tracks": [{"kind": "audio", "items": [{"asset": "tone", "at": "0", "duration": "1",
                    "source": {"start": "1.3"}}]}]
                }
                """, in: dir)
            let rendered = try firstChannelSamples(try render(loaded, to: "out.mkv", in: dir))
            let whole = try firstChannelSamples(source)
            let start = 62_400  // 1.3 s at 48 kHz
            #expect(rendered.count == 48_000)
            let differing = (0..<48_000).filter { abs(rendered[$0] - whole[start + $0]) > 2.0 / 32767 }
            #expect(
                differing.isEmpty,
                "\(differing.count) samples differ from the full decode, first at \(differing.first ?? -1)")
        }
    }

    @Test func aSpeedTooSlowForSoundIsAValidationError() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("tone.wav", in: dir, audio: "sine=frequency=440:duration=5")
            let project = """
                {
                  "assets": {"tone": {"path": "tone.wav"}},
                  "tracks": [{"kind": "audio", "items": [{"asset": "tone", "at": "0", "duration": "2",
                    "source": {"start": "3", "duration": "0.000001"}}]}]
                }
                """
            let error = #expect(throws: ProjectError.self) { _ = try loadProject(project, in: dir) }
            #expect(
                error?.diagnostics.map(\.description) == [
                    "tracks[0].items[0].source.duration: plays 1/1000000 s of media in 2 s, too slow for its sound "
                        + "(at least 1/100 of normal speed); set \"muted\": true, or play more of the media"
                ])
        }
    }
}
