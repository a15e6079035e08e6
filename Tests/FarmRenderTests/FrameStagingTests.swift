import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Numbered frames staged chunk by chunk (`FrameFiles.stage`) and put in place at the end
/// (`FrameFiles.write`): a chunk staged whole is taken as it is, never read again; one staged
/// under other numbers, or not at all, is written by the end; either way the frames are the
/// segments' pictures, numbered from 1, with nothing left in the staging folder.
@Suite struct FrameStagingTests {
    /// Two 7-frame PNG segments, as a farm's chunks 0 and 1 of a 14-frame job.
    static func segments(in dir: URL) throws -> [SegmentJoiner.Segment<Chunk>] {
        try (0..<2).map { index in
            let name = "segment-\(index).mov"
            _ = try ffmpeg(
                [
                    "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30:duration=1", "-vf",
                    "trim=start_frame=\(index * 7)",
                    "-frames:v", "7", "-c:v", "png", name,
                ], in: dir)
            return SegmentJoiner.Segment(
                url: dir.appendingPathComponent(name),
                span: Chunk(index: index, start: Int64(index * 7), end: Int64(index * 7 + 7)))
        }
    }

    /// Each frame file's bytes, by number, and the manifest `sha256sum -c` reads.
    static func check(_ dir: URL) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).sorted()
        let check = try run("sha256sum", ["-c", "out.sha256"], in: dir.appendingPathComponent("out"))
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        return names
    }

    static let expected = (1...14).map { String(format: "out.%04d.png", $0) } + ["out.sha256"]

    @Test func aChunkStagedWholeIsTakenAsItIsAndTheOthersAreWrittenAtTheEnd() throws {
        try withTemporaryDirectory { dir in
            let segments = try Self.segments(in: dir)
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            let destination = dir.appendingPathComponent("out/out.%04d.png")
            let firstOfChunk1 = try Self.digest(of: "segment-1.mov", in: dir)
            let staged = try FrameFiles.stage(segments[1], origin: 0, of: destination, owner: "job7")
            #expect(staged.count == 7 && staged.first?.hasSuffix("  out.0008.png\n") == true, "\(staged)")
            // Not read again: the end takes its frames from the staging folder.
            try FileManager.default.removeItem(at: segments[1].url)
            #expect(try FrameFiles.write(segments: segments, to: destination, owner: "job7") == 14)
            #expect(try Self.check(dir) == Self.expected)
            let manifest = try String(contentsOf: dir.appendingPathComponent("out/out.sha256"), encoding: .utf8)
            #expect(manifest.hasSuffix(staged.joined()), "the staged chunk's lines end the manifest")
            #expect(!FileManager.default.fileExists(atPath: FrameFiles.staging(of: destination, owner: "job7").path))
            #expect(try Self.digest(of: "out/out.0008.png", in: dir) == firstOfChunk1, "frame 8 is chunk 1's first")
        }
    }

    /// The decoded first picture's MD5.
    static func digest(of file: String, in dir: URL) throws -> String {
        let result = try ffmpeg(["-i", file, "-frames:v", "1", "-f", "framemd5", "-"], in: dir)
        return String(result.stdout.split(separator: "\n").last?.split(separator: ",").last ?? "")
    }

    @Test func aChunkStagedUnderOtherNumbersOrHalfStagedIsWrittenAgain() throws {
        try withTemporaryDirectory { dir in
            let segments = try Self.segments(in: dir)
            try FileManager.default.createDirectory(
                at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
            let destination = dir.appendingPathComponent("out/out.%04d.png")
            // Numbered from another first frame: its note names frames 4 to 10.
            try FrameFiles.stage(segments[0], origin: -3, of: destination, owner: "job8")
            // Frames of chunk 1 without the note that says the chunk is whole.
            let folder = FrameFiles.staging(of: destination, owner: "job8")
            try Data("not a frame".utf8).write(to: folder.appendingPathComponent("out.0008.png"))
            #expect(try FrameFiles.write(segments: segments, to: destination, owner: "job8") == 14)
            #expect(try Self.check(dir) == Self.expected)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }
    }
}
