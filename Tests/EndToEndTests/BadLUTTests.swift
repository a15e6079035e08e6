import Foundation
import TestSupport
import Testing

/// A `.cube` file that cannot be used: exit code 2, one message naming the JSON path that
/// refers to it, the file and the line, and no output file.
@Suite struct BadLUTTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var cube: String
        /// What the message says after `file:line: `.
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a data line with two numbers",
            cube: "TITLE \"bad\"\nLUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1\n",
            expected: "bad.cube:6: expected three numbers (R G B), got \"1 1\""),
        Case(
            name: "a 1D LUT", cube: "# 1D\nLUT_1D_SIZE 1024\n",
            expected: "bad.cube:2: a 1D LUT (LUT_1D_SIZE); only 3D LUTs (LUT_3D_SIZE) are supported"),
        Case(
            name: "too few data lines", cube: "LUT_3D_SIZE 2\n0 0 0\n1 1 1\n",
            expected: "bad.cube:3: 2 data lines; LUT_3D_SIZE 2 needs 8"),
        Case(
            name: "an unknown keyword", cube: "LUT_3D_SIZE 2\nLUT_3D_SHAPER 3\n",
            expected: "bad.cube:2: unknown keyword \"LUT_3D_SHAPER\""),
        Case(
            name: "domain upside down", cube: "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 0 1\n" + identity,
            expected: "bad.cube:3: DOMAIN_MIN must be below DOMAIN_MAX in every channel"),
    ]

    static let identity = "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"

    /// The LUT on the output and on the item: read once, reported once, at the first path.
    @Test(arguments: cases)
    func badLUTIsRejectedWithItsLine(_ testCase: Case) throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x64:rate=30:duration=1")
            try Data(testCase.cube.utf8).write(to: dir.appendingPathComponent("bad.cube"))
            try Data(
                """
                {"output": {"width": 64, "height": 64, "grade": {"lut": "bad.cube"}},
                 "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [
                   {"asset": "a", "at": "0", "duration": "1", "grade": {"lut": "bad.cube"}}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("project.json"))
            let result = try runFarm(["render", "project.json", "-o", "out.mp4", "--local"], in: dir)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("project.json: output.grade.lut: "), "\(result.stderr)")
            #expect(result.stderr.contains(dir.path), "\(result.stderr)")
            #expect(result.stderr.contains(testCase.expected), "\(result.stderr)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.contains("out.mp4")
            }
            #expect(leftovers.isEmpty)
        }
    }

    /// With --media-root, a LUT is confined like an asset; a missing one is named too.
    @Test func lutsOutsideTheMediaRootOrMissingAreRefused() throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try TestMedia.make("a.mp4", in: root, video: "testsrc2=size=64x64:rate=30:duration=1")
            try CubeFile.write("outside.cube", in: dir, size: 2)
            for (lut, expected) in [
                ("../outside.cube", "is outside the media root"), ("gone.cube", "file not found: "),
            ] {
                try Data(
                    """
                    {"output": {"width": 64, "height": 64}, "assets": {"a": {"path": "a.mp4"}},
                     "tracks": [{"kind": "video", "grade": {"lut": "\(lut)"}, "items": [
                       {"asset": "a", "at": "0", "duration": "1"}]}]}
                    """.utf8
                ).write(to: dir.appendingPathComponent("project.json"))
                let refused = try runFarm(["validate", "project.json", "--media-root", root.path], in: dir)
                #expect(refused.status == 2, "\(refused.stderr)")
                #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
                #expect(refused.stderr.hasPrefix("project.json: tracks[0].grade.lut: "), "\(refused.stderr)")
                #expect(refused.stderr.contains(expected), "\(refused.stderr)")
            }
        }
    }
}
