import FarmCore
import Foundation
import TestSupport
import Testing

/// `output.audio.channels`: mono, stereo or 5.1, and what `farm validate` says of a source
/// whose channels differ from the output's.
@Suite struct OutputChannelsTests {
    static func project(channels: Int) -> String {
        """
        {"output": {"audio": {"sampleRate": 48000, "channels": \(channels)}},
         "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
         "assets": {"a": {"path": "a.wav"}},
         "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
        """
    }

    @Test(arguments: [1, 2, 6]) func monoStereoAnd51AreOutputs(channels: Int) throws {
        let (project, problems) = parseProjectText(Self.project(channels: channels))
        #expect(problems.isEmpty)
        #expect(project?.output.audio.channels == channels)
    }

    @Test(arguments: [0, 3, 4, 5, 7, 8, -2]) func otherCountsAreRefusedAtTheirPath(channels: Int) {
        #expect(
            parseDiagnostics(Self.project(channels: channels)) == [
                "output.audio.channels: must be 1, 2 or 6 (got \(channels))"
            ])
    }

    @Test func validateSaysWhereASourcesChannelsGo() {
        let notes = { (channels: Int, to: Int) -> [String] in
            guard let output = parseProjectText(Self.project(channels: to)).0?.output else { return ["no project"] }
            var info = MediaInfo(
                kind: .audio, duration: Rational(1), width: 0, height: 0, rotation: 0, hasAudio: true, hasAlpha: false,
                frameRate: nil)
            info.channels = channels
            return MediaConversions.notes(info, output: output)
        }
        #expect(notes(6, 2) == ["6-channel sound is mixed down to 2 channels"])
        #expect(notes(8, 6) == ["8-channel sound is mixed down to 6 channels"])
        // Mono into stereo is what anyone expects: no note.
        #expect(notes(1, 2) == [])
        #expect(notes(1, 6) == ["1-channel sound plays from the centre channel of 5.1"])
        #expect(notes(2, 6) == ["2-channel sound plays from the front left and right channels of 5.1"])
        #expect(notes(4, 6) == ["4-channel sound is spread over 6 channels"])
        #expect(notes(6, 6).isEmpty)
        #expect(
            notes(14, 2) == [
                "14-channel sound names no channel positions: its channels are summed to mono, each at 1/14, "
                    + "and play as mono"
            ])
        #expect(notes(16, 2) == ["16-channel sound is mixed down to 2 channels"])
    }
}
