import FarmCore
import Foundation
import TestSupport
import Testing

/// Times as programs print floats ("0.6000000000000001") are read to the nearest flick
/// (1/705,600,000 s), on which every frame of the usual rates lies; a time out of range says so.
@Suite struct TimeGridTests {
    static func project(at: String, duration: String = "1", start: String = "0", fps: String = "30") -> String {
        """
        {"output": {"width": 64, "height": 64, "fps": "\(fps)"}, "assets": {"a": {"path": "a.mov"}},
         "tracks": [{"kind": "video", "items": [
           {"asset": "a", "at": "\(at)", "duration": "\(duration)", "source": {"start": "\(start)"}}]}]}
        """
    }

    @Test func floatResidueIsReadToTheNearestFlick() throws {
        let (project, problems) = parseProjectText(
            Self.project(
                at: "0.6000000000000001", duration: "0.30000000000000004",
                start: "17350666666666661/8000000000000000"))
        let item = try #require(project?.tracks[0].items[0], "\(problems)")
        #expect(item.at == Rational(3, 5))
        #expect(item.duration == Rational(3, 10))
        // 52 frames at 24000/1001, as a float rate's residue wrote it.
        #expect(item.sourceStart == Rational(52 * 1001, 24000))
        // More digits than 64 bits hold (Python's repr of 0.0001 * 3).
        let (tiny, tinyProblems) = parseProjectText(Self.project(at: "0.00030000000000000003"))
        #expect(tiny?.tracks[0].items[0].at == Rational(3, 10000), "\(tinyProblems)")
        // Exact times whose denominators fit stay exact, on the grid or not.
        let (exact, _) = parseProjectText(Self.project(at: "1/7", duration: "1001/30000", start: "2/3"))
        #expect(exact?.tracks[0].items[0].at == Rational(1, 7))
        #expect(exact?.tracks[0].items[0].sourceStart == Rational(2, 3))
    }

    @Test func aRefusedTimeGivesItsTrueReason() {
        #expect(
            parseDiagnostics(Self.project(at: "1000000.5000000000001"))
                == [
                    #"tracks[0].items[0].at: "1000000.5000000000001" is out of range: "#
                        + "times run from -1000000 to 1000000 s"
                ])
        #expect(
            parseDiagnostics(Self.project(at: "1e3"))
                == [
                    #"tracks[0].items[0].at: "1e3" is not an exact time; write a decimal ("1.5") or a ratio "#
                        + #"("1001/30000")"#
                ])
        // A rate is not rounded to a grid of times: it must be exact.
        #expect(
            parseDiagnostics(Self.project(at: "0", fps: "29.97002997002997"))
                == [
                    #"output.fps: "29.97002997002997" is finer than an exact rate holds (a denominator of at "#
                        + #"most 1000000000); write it as a ratio such as "30000/1001""#
                ])
    }

    @Test func theRoundingIsSaidOnceForTheWholeFile() throws {
        let json = """
            {"output": {"width": 64, "height": 64, "fps": "30"}, "assets": {"a": {"path": "a.mov"}},
             "tracks": [{"kind": "video", "items": [
               {"asset": "a", "at": "0.30000000000000004", "duration": "0.30000000000000004"},
               {"asset": "a", "at": "0.6000000000000001", "duration": "1"}]}]}
            """
        let parsed = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parseWithWarnings(
            Array(json.utf8), file: "p.json")
        #expect(
            parsed.warnings.map(\.description) == [
                #"tracks[0].items[0].at: "0.30000000000000004" is finer than a time can be held exactly; "#
                    + "read as 3/10, "
                    + "the nearest flick (1/705600000 s); so are 2 more in this file"
            ])
        #expect(parsed.project.tracks[0].items.map(\.end) == [Rational(3, 5), Rational(8, 5)])
        let clean = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parseWithWarnings(
            Array(Self.project(at: "0.5").utf8), file: "p.json")
        #expect(clean.warnings.isEmpty)
    }
}
