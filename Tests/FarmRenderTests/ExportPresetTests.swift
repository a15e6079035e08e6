import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Named export presets expand to their documented settings, and ProRes 422 HQ renders the
/// same frames however it is chunked.
@Suite struct ExportPresetTests {
    @Test func presetsExpandAndWrittenKeysOverrideThem() throws {
        func export(_ json: String) throws -> ExportSettings {
            try ProjectParser(mediaRoot: URL(fileURLWithPath: "/m")).parse(
                Array(
                    """
                    {"export": \(json), "assets": {"a": {"path": "a.mp4"}},
                     "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                    """.utf8), file: "p.json"
            ).export
        }
        let master = try export(#"{"preset": "master-prores"}"#)
        #expect(master.container == .mov && master.video.codec == .prores && master.audio.codec == .pcm)
        #expect(master.video.isIntraOnly && master.video.chunkAlignment == 1)
        let web = try export(#"{"preset": "web", "video": {"crf": 18}}"#)
        #expect(web.container == .mp4 && web.video.codec == .h264 && web.video.crf == 18)
        #expect(web.video.preset == "medium" && web.video.gop == 60 && web.audio.bitrate == 192_000)
        let apple = try export(#"{"preset": "hevc-apple"}"#)
        #expect(apple.video.codec == .hevc && apple.video.crf == 24 && apple.container == .mp4)
        let archive = try export(#"{"preset": "archive-ffv1"}"#)
        #expect(archive.container == .mkv && archive.video.codec == .ffv1 && archive.audio.codec == .pcm)
    }

    @Test func proresRendersTheSameFramesInOneFrameChunks() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=96x64:rate=30:duration=1")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 96, "height": 64, "fps": "30"},
                  "export": {"preset": "master-prores"},
                  "assets": {"clip": {"path": "clip.mp4"}},
                  "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "0.5",
                    "opacity": {"keys": [["0", 0.2, "ease-in"], ["0.5", 1]]}}]}]
                }
                """, in: dir)
            let whole = try render(loaded, to: "whole.mov", in: dir)
            let chunked = try renderChunked(loaded, to: "chunked.mov", in: dir, frames: 1)
            let frames = try frameHashes(whole)
            #expect(frames.count == 15)
            #expect(Set(frames).count > 10, "the ramp must change the picture")
            #expect(try frameHashes(chunked) == frames)
            let info = try probe(whole, ["-select_streams", "v", "-show_entries", "stream=codec_name,profile,pix_fmt"])
            let stream = try #require((info["streams"] as? [[String: Any]])?.first)
            #expect(stream["codec_name"] as? String == "prores")
            #expect(stream["profile"] as? String == "HQ")
            #expect(stream["pix_fmt"] as? String == "yuv422p10le")
        }
    }

    /// AV1 (SVT-AV1) follows the lossy rule: a fresh single-threaded encoder per GOP, chunks on
    /// GOP boundaries, so chunked and whole renders decode to the same frames.
    @Test func av1RendersTheSameFramesInGOPChunks() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=128x72:rate=30:duration=2")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 128, "height": 72, "fps": "30"},
                  "export": {"container": "mp4", "video": {"codec": "av1", "crf": 40, "gop": 15}},
                  "assets": {"clip": {"path": "clip.mp4"}},
                  "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "2",
                    "rotation": {"keys": [["0", 0], ["2", 30]]}}]}]
                }
                """, in: dir)
            let whole = try render(loaded, to: "whole.mp4", in: dir)
            let chunked = try renderChunked(loaded, to: "chunked.mp4", in: dir, frames: 15)
            let frames = try frameHashes(whole)
            #expect(frames.count == 60)
            #expect(try frameHashes(chunked) == frames)
            let info = try probe(whole, ["-select_streams", "v", "-show_entries", "stream=codec_name"])
            #expect((info["streams"] as? [[String: Any]])?.first?["codec_name"] as? String == "av1")
        }
    }

    @Test func av1IsRefusedWhereItCannotGo() throws {
        let error = #expect(throws: ProjectError.self) {
            try ProjectParser(mediaRoot: URL(fileURLWithPath: "/m")).parse(
                Array(
                    """
                    {"export": {"container": "mov", "video": {"codec": "av1", "lossless": true}},
                     "assets": {"a": {"path": "a.mp4"}},
                     "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                    """.utf8), file: "p.json")
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("export.video.lossless: av1 (SVT-AV1) has no lossless mode"), "\(text)")
        #expect(text.contains("export.video.codec: av1 needs container mp4 or mkv (container is mov)"), "\(text)")
    }

    /// The project rendered as the farm would, in chunks of `frames`, one file each, then joined.
    func renderChunked(_ loaded: LoadedProject, to name: String, in dir: URL, frames: Int64) throws -> URL {
        let work = dir.appendingPathComponent("work-\(name)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let output = dir.appendingPathComponent(name)
        try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: .frames(frames), to: output)
        return output
    }
}
