import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Grades against ffmpeg: a `.cube` LUT against `lut3d=interp=tetrahedral`, an ASC CDL against
/// the CDL formulas written as a `geq` expression (ffmpeg has no CDL filter), each between the
/// same YUV ↔ planar RGB conversions the farm makes (`CubeFile.graph`). The oracle's input is
/// the farm's own ungraded render of the same clip (lossless), so both grade the very same
/// frames; the clip fills the canvas at its size, so item, track and output grades all see the
/// whole frame.
@Suite struct GradeOracleTests {
    /// 320x240 testsrc2 (saturated bars, gradients, motion), 1 s, and its ungraded render.
    private func source(in dir: URL) throws -> URL {
        try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=1")
        let ungraded = try loadProject(project(), in: dir)
        return try render(ungraded, to: "ungraded.mkv", in: dir)
    }

    private func project(item: String = "", track: String = "", output: String = "") -> String {
        """
        {
          "output": {"width": 320, "height": 240, "fps": "30"\(output.isEmpty ? "" : ", \"grade\": \(output)")},
          "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
          "assets": {"clip": {"path": "clip.mp4"}},
          "tracks": [{"kind": "video"\(track.isEmpty ? "" : ", \"grade\": \(track)"), "items": [
            {"asset": "clip", "at": "0", "duration": "1"\(item.isEmpty ? "" : ", \"grade\": \(item)")}]}]
        }
        """
    }

    /// Renders `json`, runs `filter` between the farm's conversions over the ungraded render, and
    /// returns the largest and mean sample difference over every Y, U and V sample.
    private func compare(_ json: String, filter: String, in dir: URL, ungraded: URL) throws -> (max: Int, mean: Double)
    {
        let graded = try render(try loadProject(json, in: dir), to: "graded.mkv", in: dir)
        let oracle = dir.appendingPathComponent("oracle.mkv")
        try? FileManager.default.removeItem(at: oracle)
        try ffmpeg(
            [
                "-threads", "1", "-filter_threads", "1", "-i", ungraded.path, "-vf", CubeFile.graph(around: filter),
                "-c:v", "ffv1", oracle.path,
            ], in: dir)
        let (farm, reference) = (
            try decodedYUV(graded, width: 320, height: 240), try decodedYUV(oracle, width: 320, height: 240)
        )
        #expect(farm.count == 30 && reference.count == 30)
        #expect(farm != (try decodedYUV(ungraded, width: 320, height: 240)), "the grade changed nothing")
        return sampleDifference(farm, reference)
    }

    @Test func itemLUTMatchesLut3dTetrahedral() throws {
        try withTemporaryDirectory { dir in
            let ungraded = try source(in: dir)
            try CubeFile.write("look.cube", in: dir, size: 33)
            let difference = try compare(
                project(item: #"{"lut": "look.cube"}"#), filter: "lut3d=file=look.cube:interp=tetrahedral", in: dir,
                ungraded: ungraded)
            print("item LUT (33) against lut3d: max \(difference.max), mean \(difference.mean)")
            #expect(difference.max <= 1)
        }
    }

    @Test func trackLUTWithADomainMatchesLut3d() throws {
        try withTemporaryDirectory { dir in
            let ungraded = try source(in: dir)
            try CubeFile.write("wide.cube", in: dir, size: 17, domainMax: [1.5, 1.25, 2])
            let difference = try compare(
                project(track: #"{"lut": "wide.cube"}"#), filter: "lut3d=file=wide.cube:interp=tetrahedral",
                in: dir, ungraded: ungraded)
            print("track LUT (17, DOMAIN_MAX 1.5 1.25 2) against lut3d: max \(difference.max), mean \(difference.mean)")
            #expect(difference.max <= 1)
        }
    }

    @Test func outputCDLMatchesTheCDLFormulas() throws {
        try withTemporaryDirectory { dir in
            let ungraded = try source(in: dir)
            let (slope, offset, power, saturation) = ([1.2, 0.9, 1.1], [-0.05, 0.02, 0.1], [0.8, 1.25, 1.0], 0.6)
            let expressions = ["r", "g", "b"].map { channel in
                "\(channel)='"
                    + CubeFile.cdlExpression(
                        channel: channel.first!, slope: slope, offset: offset, power: power, saturation: saturation)
                    + "'"
            }
            let grade = """
                {"cdl": {"slope": [1.2, 0.9, 1.1], "offset": [-0.05, 0.02, 0.1], "power": [0.8, 1.25, 1.0],
                  "saturation": 0.6}}
                """
            // geq's default bilinear reads interpolate the last row and column; nearest reads samples.
            let difference = try compare(
                project(output: grade), filter: "geq=interpolation=nearest:" + expressions.joined(separator: ":"),
                in: dir,
                ungraded: ungraded)
            print("output CDL against geq: max \(difference.max), mean \(difference.mean)")
            #expect(difference.max <= 1)
        }
    }
}
