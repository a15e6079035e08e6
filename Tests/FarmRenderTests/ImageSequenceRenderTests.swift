import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Numbered frames as editors' and VFX houses' plates come: OpenEXR (half and float), DPX
/// 10-bit, TIFF 16-bit and PNG (8 and 16 bits), written by ffmpeg's encoders. Each sequence
/// plays at its own rate on a 30 fps timeline from a trimmed start; the render, whole and in
/// 7-frame pieces, must be ffmpeg's `image2` decode (`-framerate RATE -start_number FIRST`)
/// through one `scale` to the canvas, the frame at each time chosen by the frame rule
/// (docs/media.md: the last frame at or before the time, within an eighth of a frame).
@Suite struct ImageSequenceRenderTests {
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var ext: String
        var encode: [String]
        var first: Int?
        var rate = "24"
        var description: String { name }
    }

    static let rows = [
        Row(
            name: "EXR half", ext: "exr", encode: ["-pix_fmt", "gbrpf32le", "-c:v", "exr", "-format", "half"],
            first: 1001),
        Row(name: "EXR float with alpha", ext: "exr", encode: ["-pix_fmt", "gbrapf32le", "-c:v", "exr"], first: 86400),
        Row(name: "DPX 10-bit", ext: "dpx", encode: ["-pix_fmt", "gbrp10le", "-c:v", "dpx"], first: nil, rate: "25"),
        Row(name: "TIFF 16-bit", ext: "tif", encode: ["-pix_fmt", "rgb48le", "-c:v", "tiff"], first: 0, rate: "30"),
        Row(name: "PNG 8-bit", ext: "png", encode: ["-pix_fmt", "rgb24", "-c:v", "png"], first: 1, rate: "24000/1001"),
        Row(name: "PNG 16-bit", ext: "png", encode: ["-pix_fmt", "rgb48be", "-c:v", "png"], first: nil),
    ]

    @Test(arguments: rows)
    func rendersAsImage2DecodesIt(row: Row) throws {
        try withTemporaryDirectory { dir in
            let (width, height) = (160, 120)
            // 40 frames at the sequence's rate, numbered from its first (1 where the project
            // leaves it to be found, as image2 numbers by default).
            let number = row.first ?? 1
            try ffmpeg(
                ["-f", "lavfi", "-i", "testsrc2=size=200x150:rate=\(row.rate):duration=5", "-frames:v", "40"]
                    + row.encode + ["-start_number", "\(number)", "plate.%05d.\(row.ext)"], in: dir)
            let first = row.first.map { #", "firstFrame": \#($0)"# } ?? ""
            let loaded = try loadProject(
                """
                {"output": {"width": \(width), "height": \(height), "fps": "30"},
                 "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
                 "assets": {"p": {"path": "plate.%05d.\(row.ext)", "frameRate": "\(row.rate)"\(first)}},
                 "tracks": [{"kind": "video", "items": [
                   {"asset": "p", "at": "0", "duration": "0.8", "source": {"start": "0.25"}, "fit": "stretch"}]}]}
                """, in: dir)
            let info = try #require(loaded.media["p"])
            let rate = try #require(Rational(parsing: row.rate))
            #expect(info.kind == .video && info.firstFrame == number && info.frameRate == rate)
            #expect(info.duration == Rational(40) / rate)
            let frames = loaded.project.frameCount
            let rendered = try decodedYUV(
                render(loaded, to: "whole.mkv", in: dir, audio: false), width: width, height: height)
            #expect(Int64(rendered.count) == frames)
            var pieces: [[UInt8]] = []
            for start in stride(from: Int64(0), to: frames, by: 7) {
                let piece = try render(
                    loaded, to: "piece-\(start).mkv", in: dir, frames: start..<min(start + 7, frames), audio: false)
                pieces += try decodedYUV(piece, width: width, height: height)
            }
            #expect(pieces == rendered, "\(row.name): 7-frame pieces differ from the whole render")
            let oracle = try image2Pictures(
                in: dir, pattern: "plate.%05d.\(row.ext)", rate: row.rate, first: number, width: width,
                height: height)
            #expect(oracle.count == 40)
            for (index, picture) in rendered.enumerated() {
                let time = Rational(1, 4) + Rational(Int64(index), 30)
                let shown = Int(min(39, ((time + Rational(1, 8) / rate) * rate).floor))
                #expect(picture == oracle[shown], "\(row.name): frame \(index) is not image2's picture \(shown)")
            }
        }
    }

    /// ffmpeg's decode of the sequence, each picture through the canvas's one `scale`.
    private func image2Pictures(in dir: URL, pattern: String, rate: String, first: Int, width: Int, height: Int)
        throws -> [[UInt8]]
    {
        let raw = dir.appendingPathComponent("oracle.yuv")
        try ffmpeg(
            [
                "-framerate", rate, "-start_number", "\(first)", "-i", pattern, "-vf",
                "scale=\(width):\(height):flags=bicubic+accurate_rnd+bitexact:in_color_matrix=bt709"
                    + ":out_color_matrix=bt709:out_range=tv",
                "-pix_fmt", "yuv420p", "-f", "rawvideo", raw.path,
            ], in: dir)
        let data = [UInt8](try Data(contentsOf: raw))
        let size = width * height * 3 / 2
        return stride(from: 0, to: data.count, by: size).map { Array(data[$0..<min($0 + size, data.count)]) }
    }
}
