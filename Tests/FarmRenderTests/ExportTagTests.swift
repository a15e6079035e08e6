import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// HEVC in MP4 and MOV carries the hvc1 tag Apple's players require, and every output its
/// colour tags, whether written by the encoder or copied by the join.
@Suite struct ExportTagTests {
    /// A one-second clip exported as `codec` in `container`: rendered directly, and joined from
    /// 10-frame segments.
    static func renderedDirectAndJoined(codec: String, container: String, in dir: URL) throws -> [URL] {
        try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=64x64:rate=30:duration=1")
        let loaded = try loadProject(
            """
            {
              "output": {"width": 64, "height": 64, "fps": "30"},
              "export": {"container": "\(container)", "video": {"codec": "\(codec)", "gop": 10}},
              "assets": {"clip": {"path": "clip.mp4"}},
              "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1"}]}]
            }
            """, in: dir)
        let direct = try render(loaded, to: "direct.\(container)", in: dir)
        let joined = dir.appendingPathComponent("joined.\(container)")
        let work = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: .frames(10), to: joined)
        return [direct, joined]
    }

    @Test(arguments: ["mp4", "mov"]) func hevcIsTaggedHvc1(container: String) throws {
        try withTemporaryDirectory { dir in
            for file in try Self.renderedDirectAndJoined(codec: "hevc", container: container, in: dir) {
                let info = try probe(file, ["-select_streams", "v", "-show_entries", "stream=codec_tag_string"])
                let stream = try #require((info["streams"] as? [[String: Any]])?.first)
                #expect(stream["codec_tag_string"] as? String == "hvc1", "\(file.lastPathComponent): \(stream)")
            }
        }
    }

    /// Every output says what colour it holds (limited-range BT.709: range, matrix, primaries
    /// and transfer), rendered directly and joined from segments: MOV segments keep no range
    /// for FFV1, so the join tags the stream itself.
    @Test(arguments: [("ffv1", "mkv"), ("h264", "mp4"), ("prores", "mov"), ("hevc", "mkv")])
    func everyOutputIsTaggedBT709LimitedRange(codec: String, container: String) throws {
        try withTemporaryDirectory { dir in
            for file in try Self.renderedDirectAndJoined(codec: codec, container: container, in: dir) {
                let info = try probe(
                    file,
                    [
                        "-select_streams", "v", "-show_entries",
                        "stream=color_range,color_space,color_primaries,color_transfer",
                    ])
                let stream = try #require((info["streams"] as? [[String: Any]])?.first)
                #expect(stream["color_range"] as? String == "tv", "\(codec) \(file.lastPathComponent): \(stream)")
                #expect(stream["color_space"] as? String == "bt709", "\(codec) \(file.lastPathComponent): \(stream)")
                #expect(stream["color_primaries"] as? String == "bt709", "\(codec) \(file.lastPathComponent)")
                #expect(stream["color_transfer"] as? String == "bt709", "\(codec) \(file.lastPathComponent)")
            }
        }
    }
}
