import FarmCore
import Foundation
import TestSupport
import Testing

@Suite struct ProjectParserTests {
    func diagnostics(_ json: String) -> [String] { parseDiagnostics(json) }

    @Test func reportsEveryProblemWithItsPath() {
        let found = diagnostics(
            """
            {"output": {"width": 641, "fps": "0", "audio": {"sampleRate": 50000}},
             "assets": {"a": {"path": "a.mp4", "kind": "video"}},
             "tracks": [{"kind": "vidoe", "items": [{"asset": "a", "at": "x", "duration": "1", "fit": "cover",
                         "opacity": {"keys": [["1", 0.5], ["0.5", 1]]}}]}]}
            """)
        #expect(found.contains("output.width: must be an even number from 16 to 8192 (got 641)"))
        #expect(found.contains("output.fps: must be > 0 and at most 240 (got 0)"))
        #expect(found.contains("assets.a.kind: unknown key (allowed here: firstFrame, frameRate, path, type)"))
        #expect(found.contains(#"tracks[0].kind: "vidoe" is not one of video, audio (did you mean "video"?)"#))
        #expect(
            found.contains(
                #"tracks[0].items[0].at: "x" is not an exact time; write a decimal ("1.5") or a ratio ("1001/30000")"#))
        #expect(found.contains("tracks[0].items[0].opacity.keys[1][0]: key times must increase (1/2 after 1)"))
    }

    @Test func timesWrittenAsNumbersStayExact() throws {
        let project = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(
            Array(
                """
                {"output": {"fps": "30000/1001"}, "assets": {"a": {"path": "clips/a.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": 0.1, "duration": "1001/3000",
                   "source": {"start": "2.5", "duration": 0.7}}]}]}
                """.utf8), file: "p.json")
        let item = project.tracks[0].items[0]
        #expect(item.at == Rational(1, 10))
        #expect(item.duration == Rational(1001, 3000))
        #expect(item.speed == Rational(7, 10) / Rational(1001, 3000))
        #expect(project.assets["a"]?.path == "/media/clips/a.mp4")
        // 0.1 + 1001/3000 s at 30000/1001 fps is 12.99... frames: 13 frames.
        #expect(project.frameCount == 13)
    }
}

extension ProjectParserTests {
    @Test func anUnknownKeyUnderSourceListsEveryKeyAllowedThere() {
        let found = diagnostics(
            """
            {"assets": {"a": {"path": "a.mp4"}},
             "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1",
               "source": {"start": "1", "length": "2"}}]}]}
            """)
        #expect(found == ["tracks[0].items[0].source.length: unknown key (allowed here: duration, start)"])
    }
}

extension ProjectParserTests {
    @Test func anHDROutputNeedsATenBitCodecAndAKnownRange() throws {
        #expect(
            diagnostics(
                """
                {"output": {"dynamicRange": "pq"}, "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                """) == [
                    "output.dynamicRange: pq needs a 10-bit codec; h264 is encoded in 8 bits here: use hevc, av1, "
                        + "prores or ffv1"
                ])
        #expect(
            diagnostics(
                """
                {"output": {"dynamicRange": "hdr10"}, "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                """) == [#"output.dynamicRange: "hdr10" is not one of sdr, pq, hlg"#])
        let project = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(
            Array(
                """
                {"output": {"dynamicRange": "hlg"}, "export": {"video": {"codec": "hevc"}},
                 "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                """.utf8), file: "p.json")
        #expect(project.output.dynamicRange == .hlg)
        #expect(project.output.dynamicRange.depth == 10)
    }
}
