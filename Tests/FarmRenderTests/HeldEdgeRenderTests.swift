import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// A transition with `"handles": "hold"` over media that falls short on both sides renders as
/// the same edit over media that really holds those frames and is silent there.
@Suite struct HeldEdgeRenderTests {
    static func project(a: String, b: String, bStart: String, handles: String) -> String {
        """
        {"output": {"width": 64, "height": 64, "fps": "30"},
         "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
         "assets": {"a": {"path": "\(a)"}, "b": {"path": "\(b)"}},
         "tracks": [{"kind": "video", "items": [
             {"asset": "a", "at": "0", "duration": "2"},
             {"asset": "b", "at": "2", "duration": "2", "source": {"start": "\(bStart)"}}],
           "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "1"\(handles)}]}]}
        """
    }

    @Test func heldEdgesMatchMediaThatHoldsThem() throws {
        try withTemporaryDirectory { dir in
            let lossless = ["-c:v", "ffv1"]
            try TestMedia.make(
                "a.mkv", in: dir, video: "testsrc2=size=64x64:rate=30:duration=2",
                audio: "sine=frequency=440:sample_rate=48000:duration=2", codec: lossless)
            try TestMedia.make(
                "b.mkv", in: dir, video: "mandelbrot=size=64x64:rate=30",
                audio: "sine=frequency=660:sample_rate=48000:duration=2", codec: lossless, extra: ["-t", "2"])
            // The oracle's media: a's last frame held half a second on, b's first half a second
            // before, silence under both.
            try ffmpeg(
                [
                    "-i", "a.mkv", "-vf", "tpad=stop_mode=clone:stop_duration=0.5", "-af", "apad=pad_dur=0.5",
                    "-c:v", "ffv1", "-c:a", "pcm_s16le", "a-held.mkv",
                ], in: dir)
            try ffmpeg(
                [
                    "-i", "b.mkv", "-vf", "tpad=start_mode=clone:start_duration=0.5", "-af", "adelay=500:all=1",
                    "-c:v", "ffv1", "-c:a", "pcm_s16le", "b-held.mkv",
                ], in: dir)
            let short = Self.project(a: "a.mkv", b: "b.mkv", bStart: "0", handles: "")
            let refused = #expect(throws: ProjectError.self) { try loadProject(short, in: dir) }
            #expect(
                refused.map { "\($0)" }?.contains(#"or set "handles": "hold" to hold their edge frames"#) == true,
                "\(String(describing: refused))")
            let held = try loadProject(
                Self.project(a: "a.mkv", b: "b.mkv", bStart: "0", handles: #", "handles": "hold""#), in: dir)
            let ours = try render(held, to: "held.mkv", in: dir)
            let oracle = try loadProject(
                Self.project(a: "a-held.mkv", b: "b-held.mkv", bStart: "0.5", handles: ""), in: dir)
            let expected = try render(oracle, to: "oracle.mkv", in: dir)
            let frames = try frameHashes(ours)
            #expect(frames.count == 120)
            #expect(frames == (try frameHashes(expected)))
            let sound = try firstChannelSamples(ours)
            #expect(sound.count == 4 * 48000)
            #expect(sound == (try firstChannelSamples(expected)))
        }
    }
}
