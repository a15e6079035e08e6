import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Captions burned in and written as a subtitle stream, read back with ffmpeg and ffprobe: the
/// frames each cue shows on, across a speed change and across chunk seams, and the packets of
/// the soft stream on the same frames.
@Suite struct CaptionRenderTests {
    /// Three cues; the second runs straight on from the first.
    static let subRip = """
        1
        00:00:00,500 --> 00:00:01,000
        one

        2
        00:00:01,000 --> 00:00:01,900
        <i>two</i>

        3
        00:00:02,510 --> 00:00:03,000
        three
        """

    /// Item 0 plays the file from 0 s at speed 1 for 2 s; item 1 from 1 s at speed 2 for 1.5 s.
    static let items = """
        {"asset": "subs", "at": 0, "duration": 2, "captions": {"soft": true, "language": "eng", "style": {"size": 14}}},
        {"asset": "subs", "at": 2, "duration": 1.5, "source": {"start": 1, "duration": 3},
         "captions": {"soft": true, "language": "eng", "style": {"size": 14}}}
        """

    /// The frames each cue shows on, by the documented rule worked by hand at 30 fps: "one"
    /// 0.5 s to 1 s; "two" 1 s to 1.9 s (frame 57 is 1.9 s: not shown), then in item 1 while
    /// 1 + 2 (t − 2) < 1.9, up to 2.45 s; "three" while 2.51 <= 1 + 2 (t − 2) < 3, so from
    /// 2.755 s (frame 82.65: 83) to 3 s.
    static let expected: [(text: String, frames: Range<Int64>)] = [
        ("one", 15..<30), ("two", 30..<57), ("two", 60..<74), ("three", 83..<90),
    ]

    static func project(captions: String?, container: String = "mkv", subtitleFile: String = "talk.srt") -> String {
        let captionTrack = captions.map { #", {"kind": "video", "items": [\#($0)]}"# } ?? ""
        return """
            {"output": {"width": 160, "height": 90, "fps": "30"},
             "export": {"container": "\(container)", "video": {"codec": "h264", "lossless": true, "gop": 15}},
             "assets": {"subs": {"path": "\(subtitleFile)"}},
             "tracks": [{"kind": "video", "items": [{"solid": "#405060", "at": 0, "duration": 3.5}]}\(captionTrack)]}
            """
    }

    /// Renders through the chunks and the join, as `farm render` does.
    static func render(_ loaded: LoadedProject, _ name: String, in dir: URL, size: ChunkPlanner.Size) throws -> URL {
        let work = dir.appendingPathComponent("work-\(name)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let output = dir.appendingPathComponent(name)
        try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: size, to: output)
        return output
    }

    @Test func subRipCuesShowOnTheirFramesAcrossASpeedChangeAndChunkSeams() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.subRip.utf8).write(to: dir.appendingPathComponent("talk.srt"))
            let plain = try loadProject(Self.project(captions: nil), in: dir)
            let captioned = try loadProject(Self.project(captions: Self.items), in: dir)
            #expect(captioned.project.frameCount == 105)
            let blank = try Self.render(plain, "blank.mkv", in: dir, size: .count(1))
            let whole = try Self.render(captioned, "whole.mkv", in: dir, size: .count(1))
            let burned = try differingFrames(blank, whole)
            #expect(burned == Self.expected.flatMap { Array($0.frames) })
            // One cue, one picture: every frame of a cue is the same, "two" in either item too.
            let hashes = try frameHashes(whole)
            for cue in Self.expected { #expect(Set(cue.frames.map { hashes[Int($0)] }).count == 1, "\(cue.text)") }
            #expect(hashes[30] == hashes[60])
            #expect(hashes[29] != hashes[30])
            let soft = try softCues(whole)
            #expect(soft.map(\.text) == Self.expected.map(\.text))
            #expect(soft.map(\.frames) == Self.expected.map(\.frames))
            // Seams at every 7th and every 13th frame cut through every cue.
            for size in [ChunkPlanner.Size.frames(7), .frames(13)] {
                let chunked = try Self.render(captioned, "chunked-\(size).mkv", in: dir, size: size)
                #expect(try frameHashes(chunked) == hashes, "\(size)")
                #expect(try softCues(chunked).map(\.frames) == Self.expected.map(\.frames), "\(size)")
            }
        }
    }

    /// mov_text in MP4 keeps the frame grid exactly (its time base is the frame rate's), and the
    /// local render, chunked over two threads, writes the same stream.
    @Test func movTextInMP4IsExactOnTheFrameGrid() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.subRip.utf8).write(to: dir.appendingPathComponent("talk.srt"))
            let loaded = try loadProject(Self.project(captions: Self.items, container: "mp4"), in: dir)
            let output = dir.appendingPathComponent("local.mp4")
            var configuration = LocalRender.Configuration()
            configuration.threads = 2
            try LocalRender(loaded: loaded, configuration: configuration).render(frames: 0..<105, to: output)
            let streams = try probe(
                output, ["-select_streams", "s", "-show_entries", "stream=codec_name:stream_tags=language"])
            let stream = (streams["streams"] as? [[String: Any]])?.first
            #expect(stream?["codec_name"] as? String == "mov_text")
            #expect((stream?["tags"] as? [String: Any])?["language"] as? String == "eng")
            let soft = try softCues(output)
            #expect(soft.map(\.text) == Self.expected.map(\.text))
            #expect(soft.map(\.frames) == Self.expected.map(\.frames))
            let json = try probe(output, ["-select_streams", "s", "-show_entries", "packet=pts:stream=time_base"])
            #expect((json["streams"] as? [[String: Any]])?.first?["time_base"] as? String == "1/30")
            #expect(try videoPacketTimes(output).first == .zero)
        }
    }

    /// 500 cues, each two frames at 10 fps with a frame between: every one is burned in on its
    /// two frames and is a packet of the soft stream.
    @Test func fiveHundredCues() throws {
        try withTemporaryDirectory { dir in
            func stamp(_ tenths: Int) -> String {
                String(format: "00:%02d:%02d,%03d", tenths / 600, tenths / 10 % 60, tenths % 10 * 100)
            }
            let srt = (0..<500).map { "\($0 + 1)\n\(stamp(3 * $0)) --> \(stamp(3 * $0 + 2))\ncue \($0)\n" }
                .joined(separator: "\n")
            try Data(srt.utf8).write(to: dir.appendingPathComponent("many.srt"))
            func project(_ captions: Bool) -> String {
                let track =
                    captions
                    ? #", {"kind": "video", "items": [{"asset": "subs", "at": 0, "duration": 150, "#
                        + #""captions": {"soft": true, "style": {"size": 12}}}]}"#
                    : ""
                return """
                    {"output": {"width": 96, "height": 64, "fps": "10"},
                     "export": {"container": "mp4", "video": {"codec": "h264", "lossless": true, "gop": 10}},
                     "assets": {"subs": {"path": "many.srt"}},
                     "tracks": [{"kind": "video", "items": [{"solid": "#202020", "at": 0, "duration": 150}]}\(track)]}
                    """
            }
            let captioned = try loadProject(project(true), in: dir)
            #expect(captioned.captions["subs"]?.count == 500)
            let blank = try Self.render(try loadProject(project(false), in: dir), "blank.mp4", in: dir, size: .count(2))
            let burned = try Self.render(captioned, "burned.mp4", in: dir, size: .count(3))
            let expectedFrames: [Int64] = (0..<Int64(500)).flatMap { cue -> [Int64] in [3 * cue, 3 * cue + 1] }
            #expect(try differingFrames(blank, burned) == expectedFrames)
            let soft = try softCues(burned, fps: Rational(10))
            #expect(soft.count == 500)
            #expect(soft.map(\.text) == (0..<500).map { "cue \($0)" })
            let runs: [Range<Int64>] = (0..<Int64(500)).map { cue -> Range<Int64> in (3 * cue)..<(3 * cue + 2) }
            #expect(soft.map(\.frames) == runs)
        }
    }
}
