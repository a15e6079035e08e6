import FarmCore
import Foundation
import TestSupport
import Testing

/// `.cube` reading, the grade arithmetic at its fixed points, and the `grade` keys.
@Suite struct GradeTests {
    /// A 2-point LUT whose file line `i` (red fastest) holds (i, 10 + i, 20 + i) / 100.
    static let numbered: [String] = (0..<8).map { (line: Int) -> String in
        let value = Double(line) / 100
        return String(format: "%.2f %.2f %.2f", value, value + 0.1, value + 0.2)
    }

    @Test func cubeKeepsTitleSizeDomainAndOrder() throws {
        let text =
            "# comment\n\nTITLE \"Film look\"\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0.1 0\nDOMAIN_MAX 1 2 4\n"
            + Self.numbered.joined(separator: "\n") + "\n"
        let lut = try CubeLUT.parse(text, file: "look.cube")
        #expect(lut.title == "Film look")
        #expect(lut.size == 2)
        #expect(lut.domainMin == [0, 0.1, 0] && lut.domainMax == [1, 2, 4])
        // Line 1 of the data is red 1, green 0, blue 0: stored at r × 4 + g × 2 + b = 4.
        #expect(lut.values[4 * 3] == 0.01 && lut.values[4 * 3 + 1] == 0.11)
        // Line 4 is red 0, green 0, blue 1: stored at 1.
        #expect(lut.values[1 * 3] == 0.04)
    }

    @Test func cubeFromWindowsEditorsReads() throws {
        let text = "\u{FEFF}TITLE \"crlf\"\r\nLUT_3D_SIZE 2\r\n" + Self.numbered.joined(separator: "\r\n") + "\r\n"
        let lut = try CubeLUT.parse(text, file: "windows.cube")
        #expect(lut.title == "crlf" && lut.size == 2 && lut.values.count == 24)
    }

    @Test func cubeErrorsSayTheLine() {
        func message(_ text: String) -> String {
            do {
                _ = try CubeLUT.parse(text, file: "x.cube")
                return "parsed"
            } catch { return "\(error)" }
        }
        #expect(
            message("LUT_1D_SIZE 4\n") == "x.cube:1: a 1D LUT (LUT_1D_SIZE); only 3D LUTs (LUT_3D_SIZE) are supported")
        #expect(message("LUT_3D_SIZE 1\n") == "x.cube:1: LUT_3D_SIZE must be a whole number from 2 to 256")
        #expect(message("TITLE \"x\"\n") == "x.cube: no LUT_3D_SIZE line: not a 3D .cube LUT")
        #expect(message("0 0 0\n") == "x.cube:1: a data line before LUT_3D_SIZE")
        #expect(
            message("LUT_3D_SIZE 2\n" + Self.numbered.joined(separator: "\n") + "\n1 1 1\n")
                == "x.cube:10: more than 2³ = 8 data lines")
        #expect(
            message("LUT_3D_SIZE 2\n0 0 0\nTITLE \"late\"\n")
                == "x.cube:3: TITLE after the data lines; keywords come first")
        #expect(message("LUT_3D_SIZE 2\n0 0 nan\n").hasPrefix("x.cube:2: expected three numbers"))
        #expect(
            message("LUT_3D_INPUT_RANGE 0\nLUT_3D_SIZE 2\n")
                == "x.cube:1: LUT_3D_INPUT_RANGE takes two numbers (min max)")
    }

    @Test func lutCornersAndInputRangeFollowLut3d() throws {
        let lut = try CubeLUT.parse("LUT_3D_SIZE 2\n" + Self.numbered.joined(separator: "\n"), file: "x.cube")
        let program = try #require(
            GradeProgram([ColourGrade(lut: LUTReference(path: "x"))], luts: ["x": lut], depth: 8))
        // Grid points give their values, truncated as lut3d does: 0.20 × 255 = 51.
        #expect(program.apply(0, 0, 0) == (0, 25, 51))
        #expect(program.apply(255, 255, 255) == (17, 43, 68))
        // A wider domain: input 1.0 is halfway along red's axis (DOMAIN_MAX 2), so red mixes
        // lines 0 and 1 half and half: 0.005 × 255 → 1.
        let wide = try CubeLUT.parse(
            "LUT_3D_SIZE 2\nDOMAIN_MAX 2 1 1\n" + Self.numbered.joined(separator: "\n"), file: "y.cube")
        let widened = try #require(
            GradeProgram([ColourGrade(lut: LUTReference(path: "y"))], luts: ["y": wide], depth: 8))
        #expect(widened.apply(255, 0, 0).0 == 1)
        // 10 bits: the top code is 1023.
        let ten = try #require(GradeProgram([ColourGrade(lut: LUTReference(path: "x"))], luts: ["x": lut], depth: 10))
        #expect(
            ten.apply(1023, 1023, 1023) == (Int(Float(0.07) * 1023), Int(Float(0.17) * 1023), Int(Float(0.27) * 1023)))
    }

    @Test func cdlFollowsTheASCFormulasAndClamps() throws {
        func program(_ cdl: ColourDecision) throws -> GradeProgram {
            try #require(GradeProgram([ColourGrade(cdl: cdl)], luts: [:], depth: 8))
        }
        // Slope halves: 255 → 127.5, rounded to 128.
        #expect(try program(ColourDecision(slope: [0.5, 1, 1])).apply(255, 0, 0) == (128, 0, 0))
        // Offset past 1 and below 0 clamps before the power; power 0 gives 1 everywhere.
        #expect(try program(ColourDecision(offset: [2, -2, 0], power: [1, 1, 0])).apply(10, 200, 0) == (255, 0, 255))
        // Power 2: 0.5² = 0.25 → 63.75 → 64.
        #expect(
            try program(ColourDecision(power: [2, 2, 2])).apply(128, 128, 128).0
                == Int((pow(128.0 / 255, 2) * 255).rounded()))
        // Saturation 0: every channel is the Rec. 709 luma, 0.2126 × 255 → 54.
        #expect(try program(ColourDecision(saturation: 0)).apply(255, 0, 0) == (54, 54, 54))
        // Saturation 2 pushes past 1 and 0: clamped.
        #expect(try program(ColourDecision(saturation: 2)).apply(255, 0, 0) == (255, 0, 0))
        // The identity CDL changes nothing.
        #expect(try program(ColourDecision()).apply(1, 128, 254) == (1, 128, 254))
        #expect(GradeProgram([], luts: [:], depth: 8) == nil)
    }

    @Test func gradeKeysParseOnItemsTracksAndTheOutput() throws {
        let (project, problems) = parseProjectText(
            """
            {"output": {"grade": {"lut": "/luts/show.cube"}},
             "assets": {"a": {"path": "a.mp4"}},
             "tracks": [{"kind": "video", "grade": {"cdl": {"saturation": 0.5}}, "items": [
               {"asset": "a", "at": 0, "duration": 1, "grade": {"lut": "looks/film.cube",
                 "cdl": {"slope": [1.1, 1, 0.9], "offset": [0.01, 0, -0.01], "power": [1, 1.2, 1],
                   "saturation": 1.1}}}]}]}
            """)
        #expect(problems.isEmpty, "\(problems)")
        let item = try #require(project?.tracks[0].items[0].grade)
        #expect(item.lut?.path == "/media/looks/film.cube")
        #expect(
            item.cdl
                == ColourDecision(
                    slope: [1.1, 1, 0.9], offset: [0.01, 0, -0.01], power: [1, 1.2, 1], saturation: 1.1))
        #expect(project?.tracks[0].grade == ColourGrade(cdl: ColourDecision(saturation: 0.5)))
        #expect(project?.output.grade == ColourGrade(lut: LUTReference(path: "/luts/show.cube")))
    }

    @Test func badGradesAreReportedByPath() {
        let problems = parseDiagnostics(
            """
            {"output": {"grade": {}},
             "assets": {"a": {"path": "a.mp4"}},
             "tracks": [
               {"kind": "audio", "grade": {"cdl": {}}, "items": [{"asset": "a", "at": 0, "duration": 1}]},
               {"kind": "video", "items": [
                 {"asset": "a", "at": 0, "duration": 1,
                  "grade": {"cdl": {"slope": [1, 1], "saturation": -1, "gain": 2}}},
                 {"solid": "#FF0000", "at": 1, "duration": 1, "grade": {"lut": "x.cube"}},
                 {"asset": "a", "at": 2, "duration": 1, "grade": {"lut": "", "cdl": {"power": [1, -1, 1]}}}]}]}
            """)
        #expect(
            problems == [
                #"output.grade: a grade needs "cdl", "lut" or both"#,
                "tracks[0].grade: an audio track has no pictures to grade",
                "tracks[1].items[0].grade.cdl.slope: expected three numbers [red, green, blue], got 2 values",
                "tracks[1].items[0].grade.cdl.saturation: must be from 0 to 1000 (got -1)",
                #"tracks[1].items[0].grade.cdl.gain: unknown key (allowed here: offset, power, saturation, slope)"#,
                #"tracks[1].items[1].grade: a generated picture has no media; remove "grade""#,
                "tracks[1].items[2].grade.lut: is empty",
                "tracks[1].items[2].grade.cdl.power: each power must be from 0 to 1000 (got 1, -1, 1)",
            ], "\(problems)")
    }
}
