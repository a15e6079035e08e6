import FarmCore
import FarmRender
import FarmText
import Foundation
import TestSupport
import Testing

/// WebVTT cues in Arabic, Hebrew and Japanese, burned in and written soft: right-to-left lines
/// wrap in reading order, Japanese wraps between characters, and a cue the style's font cannot
/// draw is drawn with an installed font that can (Noto Sans CJK, Debian's fonts-noto-cjk).
@Suite struct CaptionScriptTests {
    static let arabic = "مرحبا بالعالم"
    static let hebrew = "שלום עולם"
    static let japanese = "日本語の字幕です。これはとても長い行なので折り返されます"

    static func project(captions: String?, font: String? = nil) -> String {
        let style = #""size": 20"# + (font.map { #", "font": "\#($0)""# } ?? "")
        let track =
            captions.map {
                #", {"kind": "video", "items": [{"asset": "subs", "at": 0, "duration": 3, "frame": \#($0), "#
                    + #""captions": {"soft": true, "language": "mul", "safeArea": 0, "style": {\#(style)}}}]}"#
            } ?? ""
        return """
            {"output": {"width": 160, "height": 120, "fps": "30"},
             "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}},
             "assets": {"subs": {"path": "scripts.vtt"}},
             "tracks": [{"kind": "video", "items": [{"solid": "#303030", "at": 0, "duration": 3}]}\(track)]}
            """
    }

    /// Each script twice: as one line the frame's width breaks, then as the two lines that
    /// break should give; then the lines the wrong way round. Two cues of 0.5 s (15 frames) each.
    static let cues: [String] = [
        hebrew, hebrew.split(separator: " ").joined(separator: "\n"),
        hebrew.split(separator: " ").reversed().joined(separator: "\n"),
        arabic, arabic.split(separator: " ").joined(separator: "\n"),
        arabic.split(separator: " ").reversed().joined(separator: "\n"),
    ]

    static func vtt(_ texts: [String]) -> String {
        func stamp(_ frames: Int) -> String { String(format: "00:00:%02d.%03d", frames / 30, frames % 30 * 100 / 3) }
        return "WEBVTT\n\nNOTE six cues\n\n"
            + texts.enumerated().map { "c\($0)\n\(stamp(15 * $0)) --> \(stamp(15 * $0 + 15)) align:center\n\($1)\n" }
            .joined(separator: "\n")
    }

    @Test func rightToLeftLinesWrapInReadingOrder() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.vtt(Self.cues).utf8).write(to: dir.appendingPathComponent("scripts.vtt"))
            // 64 pixels wide: neither line fits beside the other at 20 px.
            let loaded = try loadProject(Self.project(captions: "[0.3, 0, 0.4, 1]"), in: dir)
            let output = try CaptionRenderTests.render(loaded, "rtl.mkv", in: dir, size: .frames(10))
            let hashes = try frameHashes(output)
            for script in 0..<2 {
                let (wrapped, broken, reversed) = (
                    hashes[script * 45], hashes[script * 45 + 15], hashes[script * 45 + 30]
                )
                #expect(wrapped == broken, "script \(script): the wrap is not the lines in reading order")
                #expect(wrapped != reversed, "script \(script)")
            }
            let blank = try CaptionRenderTests.render(
                try loadProject(Self.project(captions: nil), in: dir), "blank.mkv", in: dir, size: .count(1))
            #expect(try differingFrames(blank, output) == Array(0..<90))
            let soft = try softCues(output)
            #expect(soft.map(\.text) == Self.cues)
            let runs: [Range<Int64>] = (0..<Int64(6)).map { cue -> Range<Int64> in (15 * cue)..<(15 * cue + 15) }
            #expect(soft.map(\.frames) == runs)
        }
    }

    @Test func japaneseFallsBackToAFontThatHasItAndWrapsBetweenCharacters() throws {
        #expect(FontResolver.file(for: "DejaVu Sans", covering: Self.japanese)?.contains("NotoSansCJK") == true)
        #expect(FontResolver.file(for: "DejaVu Sans", covering: Self.hebrew)?.hasSuffix("DejaVuSans.ttf") == true)
        try withTemporaryDirectory { dir in
            try Data(Self.vtt([Self.japanese]).utf8).write(to: dir.appendingPathComponent("scripts.vtt"))
            let fallback = try CaptionRenderTests.render(
                try loadProject(Self.project(captions: "[0, 0, 1, 1]"), in: dir), "fallback.mkv", in: dir,
                size: .count(1))
            let named = try CaptionRenderTests.render(
                try loadProject(Self.project(captions: "[0, 0, 1, 1]", font: "Noto Sans CJK JP"), in: dir),
                "named.mkv", in: dir, size: .count(1))
            let hashes = try frameHashes(fallback)
            #expect(hashes == (try frameHashes(named)))
            #expect(Set(hashes[0..<15]).count == 1)
            #expect(hashes[0] != hashes[15])
            // Lines of ink: 27 full-width characters of 20 px, eight to a line of 160 px: four lines.
            let frame = try decodedYUV(fallback, width: 160, height: 120)[0]
            let inked = (0..<120).map { y in (0..<160).contains { frame[y * 160 + $0] > 200 } }
            let lines = zip(inked, [false] + inked).filter { $0 && !$1 }.count
            #expect(lines == 4, "\(lines) lines of ink")
        }
    }
}
