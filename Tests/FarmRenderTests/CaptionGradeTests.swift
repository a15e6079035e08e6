import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Burned-in captions are drawn over the output's grade: an output CDL that turns every
/// picture red leaves the captions' white text white.
@Suite struct CaptionGradeTests {
    @Test func anOutputGradeNeverTintsBurnedInCaptions() throws {
        try withTemporaryDirectory { dir in
            try Data(CaptionRenderTests.subRip.utf8).write(to: dir.appendingPathComponent("talk.srt"))
            let red = #""grade": {"cdl": {"slope": [0, 0, 0], "offset": [1, 0, 0]}}"#
            func lumaOfFrame20(captions: Bool) throws -> [UInt8] {
                let text = CaptionRenderTests.project(captions: captions ? CaptionRenderTests.items : nil)
                    .replacingOccurrences(of: #""fps": "30"}"#, with: #""fps": "30", \#(red)}"#)
                let file = dir.appendingPathComponent("p\(captions).json")
                try Data(text.utf8).write(to: file)
                let loaded = try ProjectLoader().load(file: file.path)
                let output = try CaptionRenderTests.render(loaded, "out\(captions).mkv", in: dir, size: .frames(15))
                let raw = dir.appendingPathComponent("y\(captions).gray")
                try ffmpeg([
                    "-i", output.path, "-vf", "select=eq(n\\,20)", "-frames:v", "1", "-f", "rawvideo",
                    "-pix_fmt", "gray", raw.path,
                ])
                return [UInt8](try Data(contentsOf: raw))
            }
            let graded = try lumaOfFrame20(captions: false)
            let captioned = try lumaOfFrame20(captions: true)
            // BT.709 red is luma 63 in limited range: the whole graded picture.
            #expect(graded.count == 160 * 90 && (graded.max() ?? 255) < 80, "\(graded.max() ?? 0)")
            // The cue "one" shows on frame 20 in white (235), untinted.
            #expect((captioned.max() ?? 0) >= 230, "\(captioned.max() ?? 0)")
        }
    }
}
