import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Titles: the same pixels every time and in any chunking, and glyph ink the size the font's
/// outlines give, measured against the ffmpeg program's drawtext (FreeType too, independently
/// laid out) with the same font file.
@Suite struct TitleTests {
    static let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    static func project(_ title: String, width: Int = 640, height: Int = 240, extra: String = "") -> String {
        """
        {
          "output": {"width": \(width), "height": \(height), "fps": "30", "background": "#000000"},
          "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {},
          "tracks": [{"kind": "video", "items": [{"title": {\(title)}, "at": "0", "duration": "1"\(extra)}]}]
        }
        """
    }

    /// The rectangle of pixels at least half lit in the first frame's luma.
    static func inkBox(_ file: URL, width: Int, height: Int) throws -> (width: Int, height: Int) {
        let frame = try decodedYUV(file, width: width, height: height)[0]
        var (left, right, top, bottom) = (Int.max, Int.min, Int.max, Int.min)
        for y in 0..<height {
            for x in 0..<width where frame[y * width + x] > 126 {
                (left, right, top, bottom) = (min(left, x), max(right, x), min(top, y), max(bottom, y))
            }
        }
        return (right - left + 1, bottom - top + 1)
    }

    /// Texts without kerning pairs: this drawtext kerns from the legacy 'kern' table and rounds
    /// hinted advances to whole pixels, where HarfBuzz kerns from GPOS unhinted.
    @Test(arguments: ["HIH", "lumen", "mini"])
    func inkMatchesTheFontsOutlines(text: String) throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                Self.project(#""text": "\#(text)", "font": "\#(Self.font)", "size": 100, "align": "left""#), in: dir)
            let ours = try Self.inkBox(
                try render(loaded, to: "ours.mkv", in: dir, audio: false), width: 640, height: 240)
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "color=black:size=640x240:rate=30:duration=0.1", "-vf",
                    "drawtext=fontfile=\(Self.font):text=\(text):fontsize=100:fontcolor=white:x=40:y=40,format=yuv420p",
                    "-c:v", "ffv1", "reference.mkv",
                ], in: dir)
            let reference = try Self.inkBox(dir.appendingPathComponent("reference.mkv"), width: 640, height: 240)
            #expect(abs(ours.width - reference.width) <= 1, "ink width \(ours.width), drawtext \(reference.width)")
            #expect(abs(ours.height - reference.height) <= 1, "ink height \(ours.height), drawtext \(reference.height)")
        }
    }

    @Test func samePixelsEveryRunAndEveryChunking() throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                Self.project(
                    #""text": "Chunk-proof titles wrap at spaces", "size": 40, "lineSpacing": 1.2, "#
                        + #""outline": {"width": 2}, "shadow": {"x": 4, "y": 4}, "#
                        + ##""background": {"color": "#3060C0", "opacity": 0.5}"##, width: 320, height: 180,
                    extra:
                        #", "frame": [0.1, 0.1, 0.8, 0.8], "scale": {"keys": [["0", 0.6], ["1", 1.1, "ease-out"]]}, "#
                        + #""rotation": {"keys": [["0", -8], ["1", 8]]}, "opacity": {"keys": [["0", 0], ["0.5", 1]]}"#),
                in: dir)
            let first = try frameHashes(try render(loaded, to: "first.mkv", in: dir, audio: false))
            let second = try frameHashes(try render(loaded, to: "second.mkv", in: dir, audio: false))
            #expect(first.count == 30)
            #expect(Set(first).count == 30)
            #expect(first == second)
            var chunked: [String] = []
            for n: Int64 in 0..<30 {
                chunked += try frameHashes(try render(loaded, to: "\(n).mkv", in: dir, frames: n..<n + 1, audio: false))
            }
            #expect(chunked == first)
        }
    }

    @Test func unknownFontsAreNamed() throws {
        try withTemporaryDirectory { dir in
            let error = #expect(throws: ProjectError.self) {
                try loadProject(Self.project(#""text": "x", "font": "No Such Family Anywhere""#), in: dir)
            }
            #expect(
                error.map { "\($0)" }?.contains(
                    #"tracks[0].items[0].title.font: no installed font family "No Such Family Anywhere""#) == true,
                "\(String(describing: error))")
        }
    }
}
