import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Values docs/project-format.md offers that no other test writes out: each is rendered and
/// shown to do what the docs say (`ops/check-documented.py` keeps this list complete).
@Suite struct DocumentedValuesTests {
    static let lossless =
        #"{"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}}"#

    /// `mode: free`, `fit: contain`, `align: center` and `verticalAlign: middle` are the
    /// defaults: written out, they render exactly what leaving them out renders.
    @Test func explicitDefaultsRenderAsTheirAbsence() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=96x64:rate=30:duration=1")
            func project(_ track: String, _ item: String, _ title: String) -> String {
                """
                {
                  "output": {"width": 128, "height": 72, "fps": "30"},
                  "export": \(Self.lossless),
                  "assets": {"clip": {"path": "clip.mp4"}},
                  "tracks": [
                    {"kind": "video"\(track), "items": [{"asset": "clip", "at": "0", "duration": "0.2"\(item)}]},
                    {"kind": "video", "items": [{"title": {"text": "Ab", "font": "\(TitleTests.font)",
                      "size": 20\(title)}, "at": "0", "duration": "0.2"}]}
                  ]
                }
                """
            }
            let implicit = try loadProject(project("", "", ""), in: dir)
            let implicitFrames = try frameHashes(try render(implicit, to: "implicit.mkv", in: dir, audio: false))
            let explicit = try loadProject(
                project(
                    #", "mode": "free""#, #", "fit": "contain""#, #", "align": "center", "verticalAlign": "middle""#),
                in: dir)
            #expect(explicit.project.tracks[0].items[0].fit == .contain)
            #expect(try frameHashes(try render(explicit, to: "explicit.mkv", in: dir, audio: false)) == implicitFrames)
            #expect(implicitFrames.count == 6)
        }
    }

    /// `verticalAlign: top` puts the lines at the top of the frame, `bottom` at its bottom.
    @Test func verticalAlignTopAndBottomPlaceTheLines() throws {
        try withTemporaryDirectory { dir in
            var rows: [String: (first: Int, last: Int)] = [:]
            for align in ["top", "bottom"] {
                let loaded = try loadProject(
                    TitleTests.project(
                        #""text": "Ab", "font": "\#(TitleTests.font)", "size": 40, "verticalAlign": "\#(align)""#,
                        width: 160, height: 120), in: dir)
                let frame = try decodedYUV(
                    try render(loaded, to: "\(align).mkv", in: dir, audio: false), width: 160, height: 120)[0]
                let lit = (0..<120).filter { y in (0..<160).contains { frame[y * 160 + $0] > 126 } }
                rows[align] = (lit.first ?? -1, lit.last ?? -1)
            }
            let top = try #require(rows["top"])
            let bottom = try #require(rows["bottom"])
            #expect(top.first >= 0 && top.last < 60, "top: ink on rows \(top)")
            #expect(bottom.first >= 60, "bottom: ink on rows \(bottom)")
        }
    }

    /// `pastEnd: black` shows black once the source range runs past the media's end.
    @Test func pastEndBlackShowsBlackAfterTheMedia() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=64x64:rate=30:duration=0.5")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30", "background": "#FFFFFF"},
                  "export": \(Self.lossless),
                  "assets": {"clip": {"path": "clip.mp4"}},
                  "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1",
                    "pastEnd": "black"}]}]
                }
                """, in: dir)
            let frames = try decodedYUV(try render(loaded, to: "out.mkv", in: dir, audio: false), width: 64, height: 64)
            #expect(frames.count == 30)
            // Black in limited range: luma 16 everywhere, over a white background.
            #expect(frames[29][0..<4096].allSatisfy { $0 == 16 }, "the last frame is black")
            #expect(frames[0][0..<4096].contains { $0 > 100 }, "the first frame shows the clip")
        }
    }

    /// Every x264 preset name the docs list reaches the encoder, `bitrate` replaces `crf`, and
    /// encoder options reach it too (`profile`).
    @Test func everyPresetABitrateAndEncoderOptionsRender() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=64x64:rate=30:duration=1")
            let presets = [
                "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow",
                "placebo",
            ]
            let exports =
                presets.map { #"{"video": {"codec": "h264", "gop": 10, "preset": "\#($0)"}}"# } + [
                    #"{"video": {"codec": "h264", "gop": 10, "bitrate": 20000}}"#,
                    #"{"video": {"codec": "h264", "gop": 10, "encoderOptions": {"tune": "film", "profile": "main"}}}"#,
                ]
            var files: [URL] = []
            for (index, export) in exports.enumerated() {
                let loaded = try loadProject(
                    """
                    {
                      "output": {"width": 64, "height": 64, "fps": "30"},
                      "export": \(export),
                      "assets": {"clip": {"path": "clip.mp4"}},
                      "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1/3"}]}]
                    }
                    """, in: dir)
                let file = try render(loaded, to: "out-\(index).mp4", in: dir, audio: false)
                #expect(try frameHashes(file).count == 10, "\(export)")
                files.append(file)
            }
            let sizes = files.map { fileSize($0) ?? 0 }
            // The presets make different streams (the encoder took the names) ...
            #expect(Set(sizes.prefix(presets.count)).count > 3, "\(sizes)")
            // ... 20 kb/s is far smaller than crf 20 ...
            #expect(sizes[presets.count] < sizes[2], "\(sizes)")
            // ... and the profile asked for is the stream's (the presets make High).
            func profile(_ file: URL) throws -> String? {
                let info = try probe(file, ["-select_streams", "v", "-show_entries", "stream=profile"])
                return (info["streams"] as? [[String: Any]])?.first?["profile"] as? String
            }
            #expect(try profile(files[2]) == "High")
            #expect(try profile(files[presets.count + 1]) == "Main")
        }
    }
}
