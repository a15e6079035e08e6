import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Transitions with one side empty (`"between": [null, i]` or `[i, null]`): fades from and to
/// what lies below the track, black on the lowest, as editors play a transition at a track's
/// edge or next to a gap. Against ffmpeg's `fade` and `afade`, and the same in any chunking.
@Suite struct FadeTransitionTests {
    static func project(_ transitions: String, at: String = "0", extra: String = "") -> String {
        """
        {
          "output": {"width": 160, "height": 120, "fps": "30", "background": "#000000",
            "audio": {"sampleRate": 48000, "channels": 2}},
          "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {"a": {"path": "a.mkv"}},
          "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "\(at)", "duration": "3"\(extra)}],
            "transitions": [\(transitions)]}]
        }
        """
    }

    static func makeClip(in dir: URL) throws {
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=4", "-f", "lavfi", "-i",
                "aevalsrc=0.5|0.5:s=48000:d=4", "-c:v", "ffv1", "-c:a", "pcm_s16le", "a.mkv",
            ], in: dir)
    }

    @Test func aFadeInAndOutAreFFmpegsFadeFromAndToBlack() throws {
        try withTemporaryDirectory { dir in
            try Self.makeClip(in: dir)
            let loaded = try loadProject(
                Self.project(
                    #"{"between": [null, 0], "type": "dissolve", "duration": "1"}, "#
                        + #"{"between": [0, null], "type": "dissolve", "duration": "0.5", "audio": "linear"}"#),
                in: dir)
            let ours = try render(loaded, to: "ours.mkv", in: dir)
            try ffmpeg(
                [
                    "-i", "a.mkv", "-vf", "trim=0:3,fade=t=in:st=0:d=1,fade=t=out:st=2.5:d=0.5,format=yuv420p",
                    "-an", "-c:v", "ffv1", "reference.mkv",
                ], in: dir)
            #expect(try frameHashes(ours).count == 90)
            let psnr = try lowestLumaPSNR(ours, dir.appendingPathComponent("reference.mkv"))
            #expect(psnr >= 45, "lowest luma PSNR against ffmpeg's fade: \(psnr) dB")
            // The first frame is black, the last before the fade out is the clip's own.
            let frames = try decodedYUV(ours, width: 160, height: 120)
            #expect(frames[0].prefix(160 * 120).allSatisfy { $0 == 16 })
            let clip = try decodedYUV(dir.appendingPathComponent("a.mkv"), width: 160, height: 120)
            #expect(frames[74] == clip[74])

            // The sound: in by equal power over 1 s, out linearly over the last 0.5 s.
            let samples = try firstChannelSamples(ours)
            #expect(samples.count == 3 * 48000)
            for n in stride(from: 0, to: 3 * 48000, by: 499) {
                let t = Double(n) / 48000
                let gain = t < 1 ? sin(t * .pi / 2) : t >= 2.5 ? 1 - (t - 2.5) / 0.5 : 1
                #expect(abs(Double(samples[n]) - 0.5 * gain) < 2e-3, "sample \(n): \(samples[n]), gain \(gain)")
            }
        }
    }

    /// A fade in that starts before its item, over an empty span, holding the first frame
    /// there; chunks of one frame and of seven render it as the whole does.
    @Test func aFadeReachingIntoAGapRendersTheSameInAnyChunking() throws {
        try withTemporaryDirectory { dir in
            try Self.makeClip(in: dir)
            let loaded = try loadProject(
                Self.project(
                    #"{"between": [null, 0], "type": "wipe", "inOffset": "0.5", "outOffset": "0.5", "#
                        + #""handles": "hold"}"#, at: "1"), in: dir)
            let whole = try frameHashes(try render(loaded, to: "whole.mkv", in: dir))
            #expect(whole.count == 120)
            for size: Int64 in [1, 7] {
                var chunked: [String] = []
                for first in stride(from: Int64(0), to: 120, by: Int(size)) {
                    let piece = try render(
                        loaded, to: "\(size)-\(first).mkv", in: dir, frames: first..<min(first + size, 120),
                        audio: false)
                    chunked += try frameHashes(piece)
                }
                #expect(chunked == whole, "\(size)-frame chunks")
            }
            // Black until the fade starts at 0.5 s; the wipe is under way by 0.75 s.
            let frames = try decodedYUV(dir.appendingPathComponent("whole.mkv"), width: 160, height: 120)
            #expect(frames[14].prefix(160 * 120).allSatisfy { $0 == 16 })
            #expect(!frames[23].prefix(160 * 120).allSatisfy { $0 == 16 })
        }
    }

    @Test func aFadeOverAnotherItemIsRefusedNamingIt() throws {
        try withTemporaryDirectory { dir in
            try Self.makeClip(in: dir)
            let error = #expect(throws: ProjectError.self) {
                try loadProject(
                    """
                    {
                      "output": {"width": 160, "height": 120, "fps": "30"},
                      "assets": {"a": {"path": "a.mkv"}},
                      "tracks": [{"kind": "video", "items": [
                          {"asset": "a", "at": "0", "duration": "1"}, {"asset": "a", "at": "1", "duration": "1"}],
                        "transitions": [{"between": [null, 1], "type": "dissolve", "inOffset": "0.5",
                          "outOffset": "0.5", "handles": "hold"}]}]
                    }
                    """, in: dir)
            }
            #expect(
                error?.description.contains(
                    "tracks[0].transitions[0]: fades in over 1/2 to 1 s, where items[0] is") == true,
                "\(String(describing: error))")
            let both = #expect(throws: ProjectError.self) {
                try loadProject(
                    Self.project(#"{"between": [null, null], "type": "dissolve", "duration": "1"}"#), in: dir)
            }
            #expect(both?.description.contains("one may be null, for a fade") == true, "\(String(describing: both))")
        }
    }
}
