import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// GOPs cut from a chunk's segment are the packets a worker writes for those frames alone: what
/// lets the segment cache serve a chunk an edit changed in part (`ChunkGrains`).
@Suite struct SegmentCutTests {
    /// Each packet of the file's `stream`-th video stream: its times and a hash of its bytes.
    static func packets(_ file: URL, stream: Int) throws -> [String] {
        let json = try probe(
            file,
            [
                "-select_streams", "v:\(stream)", "-show_data_hash", "SHA256", "-show_entries",
                "packet=pts,dts,flags,data_hash",
            ])
        let entries = try #require(json["packets"] as? [[String: Any]])
        return entries.map { "\($0["pts"] ?? "-") \($0["dts"] ?? "-") \($0["flags"] ?? "") \($0["data_hash"] ?? "")" }
    }

    /// Three seconds at GOP 30 with a rendition (two video streams a segment), in each codec
    /// encoded a GOP at a time.
    @Test(arguments: ["h264", "hevc", "av1"]) func theMiddleGOPCutFromAThreeGOPChunkIsThatGOPRenderedAlone(
        codec: String
    )
        throws
    {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=192x128:rate=30:duration=3")
            let loaded = try loadProject(
                """
                {"output": {"width": 192, "height": 128, "fps": "30"},
                 "export": {"container": "mp4", "video": {"codec": "\(codec)", "gop": 30, "crf": 28},
                            "renditions": [{"width": 192, "height": 128}, {"width": 96, "height": 64}]},
                 "assets": {"clip": {"path": "clip.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "3"}]}]}
                """, in: dir)
            let render = ChunkedRender(loaded: loaded, workDirectory: dir)
            let whole = try render.renderSegment(Chunk(index: 0, start: 0, end: 90))
            let alone = try render.renderSegment(Chunk(index: 1, start: 30, end: 60))
            let cut = dir.appendingPathComponent("cut.mov")
            try SegmentCut.write(from: whole, frames: 30..<60, fps: Rational(30), to: cut)
            for stream in 0..<2 {
                let expected = try Self.packets(alone, stream: stream)
                #expect(expected.count == 30)
                #expect(try Self.packets(cut, stream: stream) == expected, "stream \(stream)")
            }
            #expect(try frameHashes(cut) == frameHashes(alone))
            // The last GOP too, and a range that is not in the segment is refused.
            let last = dir.appendingPathComponent("last.mov")
            try SegmentCut.write(from: whole, frames: 60..<90, fps: Rational(30), to: last)
            let lastAlone = try render.renderSegment(Chunk(index: 2, start: 60, end: 90))
            #expect(try Self.packets(last, stream: 0) == Self.packets(lastAlone, stream: 0))
            let beyond = dir.appendingPathComponent("beyond.mov")
            #expect(throws: FFmpegError.self) {
                try SegmentCut.write(from: whole, frames: 60..<120, fps: Rational(30), to: beyond)
            }
            #expect(!FileManager.default.fileExists(atPath: beyond.path), "nothing half-written")
        }
    }
}
