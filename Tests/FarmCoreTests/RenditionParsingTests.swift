import FarmCore
import Foundation
import TestSupport
import Testing

/// `export.renditions`, `video.maxrate` and `video.bufsize`, and the `hls` container as the
/// parser reads them: defaults, inheritance from `export.video`, and every refusal by its path.
@Suite struct RenditionParsingTests {
    static func project(export: String) -> String {
        """
        {"output": {"width": 1920, "height": 1080, "fps": "30"}, "export": \(export),
         "assets": {"a": {"path": "a.mp4"}},
         "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "4"}]}]}
        """
    }

    @Test func aRenditionTakesExportVideoAndOverridesItsOwnKeys() throws {
        let (parsed, problems) = parseProjectText(
            Self.project(
                export: #"""
                    {"video": {"crf": 21, "preset": "fast", "gop": 48, "encoderOptions": {"tune": "film"}},
                     "renditions": [{"width": 1920, "height": 1080},
                                    {"name": "small", "width": 640, "height": 360,
                                     "video": {"crf": 27, "maxrate": 800000, "bufsize": 1200000}}]}
                    """#))
        let project = try #require(parsed, "\(problems)")
        let encodes = project.export.encodes(of: project.output)
        #expect(encodes.map { $0.name } == ["1080p", "small"])
        #expect(encodes.map { $0.width } == [1920, 640] && encodes.map { $0.height } == [1080, 360])
        #expect(encodes[0].video == project.export.video)
        #expect(encodes[1].video.crf == 27 && encodes[1].video.preset == "fast" && encodes[1].video.gop == 48)
        #expect(encodes[1].video.maxrate == 800_000 && encodes[1].video.bufsize == 1_200_000)
        #expect(encodes[1].video.encoderOptions == ["tune": "film"])
        #expect(encodes[1].output(project.output).width == 640)
    }

    @Test func withoutRenditionsTheOutputIsTheOneEncode() throws {
        let project = try #require(parseProjectText(Self.project(export: #"{"video": {"maxrate": 500000}}"#)).0)
        let encodes = project.export.encodes(of: project.output)
        #expect(encodes.count == 1 && encodes[0].width == 1920 && encodes[0].video.maxrate == 500_000)
        #expect(encodes[0].video.bufsize == nil)
        #expect(project.export.renditions == nil)
    }

    /// A lossless main encode may start chunks anywhere; a lossy rendition beside it may not.
    @Test func chunksFallOnEveryRenditionsGOP() throws {
        let project = try #require(
            parseProjectText(
                Self.project(
                    export: #"""
                        {"container": "mkv", "video": {"codec": "ffv1", "gop": 30},
                         "renditions": [{"width": 640, "height": 360, "video": {"codec": "h264", "lossless": false}}]}
                        """#)
            ).0)
        #expect(project.export.video.chunkAlignment == 1)
        #expect(project.export.chunkAlignment == 30)
        #expect(project.videoChunks(.frames(7)).allSatisfy { $0.start % 30 == 0 })
    }

    @Test func hlsTakesWhatMP4Takes() {
        #expect(ExportSettings.Container(fileExtension: "M3U8") == .hls)
        #expect(ExportSettings.Container(fileExtension: "hls") == nil)
        #expect(ExportSettings.Container.hls.fileExtension == "m3u8")
        let problems = parseDiagnostics(
            Self.project(
                export: #"""
                    {"container": "hls", "audio": {"codec": "pcm"},
                     "renditions": [{"width": 640, "height": 360, "video": {"codec": "prores"}}]}
                    """#))
        #expect(
            problems.contains("export.audio.codec: pcm audio needs container mp4, mov or mkv (container is hls)"),
            "\(problems)")
        #expect(
            problems.contains(
                "export.renditions[0].video.codec: prores needs container mp4, mov or mkv (container is hls)"),
            "\(problems)")
    }

    @Test func badRenditionsAreRefusedByPath() {
        let problems = parseDiagnostics(
            Self.project(
                export: #"""
                    {"video": {"maxrate": 5000, "bufsize": 2000},
                     "renditions": [{"width": 641, "height": 360},
                                    {"name": "Big One", "width": 1280, "height": 720},
                                    {"name": "hd", "width": 1280, "height": 720, "video": {"gop": 12}},
                                    {"name": "hd", "width": 640, "height": 8200},
                                    {"width": 320, "height": 180, "video": {"bufsize": 100000}},
                                    {"height": 180, "size": 3}]}
                    """#))
        let expected = [
            "export.video.maxrate: must be at least 10000 bits per second (got 5000)",
            "export.video.bufsize: must be at least 10000 bits (got 2000)",
            "export.renditions[0].width: must be an even number from 16 to 8192 (got 641)",
            #"export.renditions[1].name: "Big One" must be 1 to 32 of a-z, 0-9 and -: it names the rendition's files"#,
            "export.renditions[3].height: must be an even number from 16 to 8192 (got 8200)",
            "export.renditions[5].width: is required",
        ]
        for line in expected { #expect(problems.contains(line), "\(line) not in \(problems)") }
        #expect(problems.contains { $0.hasPrefix("export.renditions[2].video.gop: ") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("export.renditions[5].size: ") }, "\(problems)")
        // The video settings inherit maxrate 5000, so only a bufsize of its own is refused for lacking one.
        #expect(!problems.contains { $0.hasPrefix("export.renditions[4].video.bufsize: needs") }, "\(problems)")
    }

    @Test func aDuplicateNameAndABufsizeWithoutMaxrateAreRefused() {
        let problems = parseDiagnostics(
            Self.project(
                export: #"""
                    {"renditions": [{"width": 1280, "height": 720},
                                    {"width": 960, "height": 720, "video": {"bufsize": 100000}}]}
                    """#))
        #expect(problems.contains(#"export.renditions[1].name: "720p" names renditions[0] already"#), "\(problems)")
        #expect(
            problems.contains("export.renditions[1].video.bufsize: needs maxrate, the rate its buffer is filled at"),
            "\(problems)")
    }

    @Test func theLadderHoldsOneToEightRenditions() {
        let nine = (0..<9).map { #"{"name": "r\#($0)", "width": 320, "height": 180}"# }.joined(separator: ",")
        #expect(
            parseDiagnostics(Self.project(export: #"{"renditions": [\#(nine)]}"#)).contains(
                "export.renditions: must hold 1 to 8 renditions (got 9)"))
        #expect(
            parseDiagnostics(Self.project(export: #"{"renditions": []}"#)).contains(
                "export.renditions: must hold 1 to 8 renditions (got 0)"))
        #expect(
            parseDiagnostics(Self.project(export: #"{"renditions": {"width": 320}}"#)).contains(
                "export.renditions: expected an array of renditions, got an object"))
    }
}
