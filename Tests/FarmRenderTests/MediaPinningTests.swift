import FarmCore
import FarmMedia
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Pins are stamps, taken with one `stat`; a pinned file is read in whole blocks, each checked
/// against the stamp and hashed as it comes in, and only the blocks the demuxer asks for.
@Suite struct MediaPinningTests {
    /// Sets the file's modification time back to `stamp`'s, as `touch -d` would.
    static func setModified(_ url: URL, to stamp: FileStamp) {
        let time = timespec(tv_sec: Int(stamp.modified / 1_000_000_000), tv_nsec: Int(stamp.modified % 1_000_000_000))
        var times = [time, time]
        #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
    }

    /// Flips the byte at `offset` in place, then sets the modification time back: same size,
    /// same mtime, same inode. Past the coarse clock's tick, so the ctime can move.
    static func rewriteInPlace(_ url: URL, at offset: UInt64, keeping stamp: FileStamp) throws {
        Thread.sleep(forTimeInterval: 0.02)
        let handle = try FileHandle(forUpdating: url)
        try handle.seek(toOffset: offset)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: [byte ^ 0xff])
        try handle.close()
        setModified(url, to: stamp)
    }

    static func project(_ clip: URL) throws -> Project {
        let (parsed, problems) = parseProjectText(
            """
            {"assets": {"clip": {"path": "\(clip.path)"}},
             "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1"}]}]}
            """)
        return try #require(parsed, "\(problems)")
    }

    @Test func aRewriteOrAReplacementWithTheOldSizeAndModificationTimeIsAnotherVersion() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("clip.bin")
            let original = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try original.write(to: file)
            let pins = try MediaPin.pins(of: Self.project(file))
            let pin = try #require(pins["clip"])
            let stamp = try #require(pin.stamp)
            #expect(pin.admits(try #require(FileStamp(path: file.path))))

            try Self.rewriteInPlace(file, at: 50_000, keeping: stamp)
            let rewritten = try #require(FileStamp(path: file.path))
            #expect(rewritten.size == stamp.size && rewritten.modified == stamp.modified)
            #expect(rewritten.inode == stamp.inode)
            #expect(!pin.admits(rewritten), "the ctime tells an in-place rewrite")

            // The original bytes again, in a new file renamed over it with the old mtime.
            let replacement = dir.appendingPathComponent("replacement.bin")
            try original.write(to: replacement)
            Self.setModified(replacement, to: stamp)
            #expect(rename(replacement.path, file.path) == 0)
            let replaced = try #require(FileStamp(path: file.path))
            #expect(replaced.size == stamp.size && replaced.modified == stamp.modified)
            #expect(!pin.admits(replaced), "the inode tells a replacement")
        }
    }

    /// 60 s of raw 160x90 video in Matroska: about 39 MB, ten blocks.
    static func rawClip(in dir: URL) throws -> URL {
        try TestMedia.make(
            "clip.mkv", in: dir, video: "testsrc2=size=160x90:rate=30:duration=60",
            codec: ["-c:v", "rawvideo", "-pix_fmt", "yuv420p"])
    }

    @Test func aPinnedReaderReadsOnlyTheBlocksItsDemuxerNeedsAndHashesThemRight() throws {
        try withTemporaryDirectory { dir in
            let clip = try Self.rawClip(in: dir)
            let project = try Self.project(clip)
            let info = try MediaProbe.probe(path: clip.path)
            let reads = MediaReads(project: project, pins: try MediaPin.pins(of: project), assets: ["clip"])
            let pinned = try VideoReader(path: clip.path, info: info, reads: reads)
            let plain = try VideoReader(path: clip.path, info: info)
            for second in [30, 30, 31] {
                let time = Rational(Int64(second))
                let (a, b) = (try pinned.frame(at: time), try plain.frame(at: time))
                #expect(pinned.pictureIdentity == plain.pictureIdentity)
                #expect(a.width == b.width && a.height == b.height)
            }
            let bytes = try Data(contentsOf: clip)
            let total = (bytes.count + MediaReads.blockSize - 1) / MediaReads.blockSize
            let blocks = reads.blocks
            #expect(total >= 9, "the clip must span many blocks")
            // The header and what probing reads (2 blocks), the index at the end, and 30 s in.
            #expect(!blocks.isEmpty && blocks.count <= 5, "read \(blocks.map(\.block)) of \(total) blocks")
            for block in blocks {
                let start = Int(block.block) * MediaReads.blockSize
                let hasher = SHA256()
                hasher.update(bytes[start..<min(bytes.count, start + MediaReads.blockSize)])
                #expect(block.sha256 == hasher.finish(), "block \(block.block)")
                #expect(block.asset == "clip" && block.path == clip.path)
            }
            #expect(reads.failure == nil)
        }
    }

    @Test func aFileRewrittenInPlaceWhileItIsReadFailsAsChanged() throws {
        try withTemporaryDirectory { dir in
            let clip = try Self.rawClip(in: dir)
            let project = try Self.project(clip)
            let pins = try MediaPin.pins(of: project)
            let reads = MediaReads(project: project, pins: pins, assets: ["clip"])
            let reader = try VideoReader(path: clip.path, info: try MediaProbe.probe(path: clip.path), reads: reads)
            _ = try reader.frame(at: Rational(0))
            try Self.rewriteInPlace(clip, at: 9_000_000, keeping: try #require(pins["clip"]?.stamp))
            let error = #expect(throws: MediaChangedError.self) { _ = try reader.frame(at: Rational(15)) }
            #expect(error?.description == "assets.clip: media changed since the job was submitted (\(clip.path))")
            #expect(reads.failure != nil)
        }
    }

    @Test func aBlockReadAgainWithOtherBytesIsAChange() throws {
        let project = try Self.project(URL(fileURLWithPath: "/media/clip.mov"))
        let stamp = FileStamp(size: 10, modified: 1, changed: 2, inode: 3, device: 4)
        let reads = MediaReads(project: project, pins: ["clip": MediaPin(stamp)], assets: ["clip"])
        try reads.read(path: "/media/clip.mov", block: 0, sha256: "aa")
        try reads.read(path: "/media/clip.mov", block: 0, sha256: "aa")
        #expect(throws: MediaChangedError.self) { try reads.read(path: "/media/clip.mov", block: 0, sha256: "bb") }
        #expect(
            reads.blocks == [
                MediaReads.Block(asset: "clip", path: "/media/clip.mov", version: "10-1-2-3", block: 0, sha256: "aa")
            ])
    }

    /// A copy (the same bytes under another inode, ctime and path) is read, its blocks flagged
    /// as a copy's with the digests of its bytes; a copy of another size is another file.
    @Test func aCopyIsReadAndItsBlocksAreFlaggedAsACopysWhileAnotherSizeFailsAtOnce() throws {
        try withTemporaryDirectory { dir in
            let clip = try Self.rawClip(in: dir)
            let pins = try MediaPin.pins(of: try Self.project(clip))
            let copy = dir.appendingPathComponent("node/clip.mkv")
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(try run("/bin/cp", ["--preserve=timestamps", clip.path, copy.path]).status == 0)
            let project = try Self.project(copy)
            let reads = MediaReads(project: project, pins: pins, assets: ["clip"])
            let reader = try VideoReader(path: copy.path, info: try MediaProbe.probe(path: copy.path), reads: reads)
            _ = try reader.frame(at: Rational(30))
            #expect(reads.failure == nil)
            let bytes = try Data(contentsOf: clip)
            #expect(!reads.blocks.isEmpty)
            for block in reads.blocks {
                let start = Int(block.block) * MediaReads.blockSize
                let hasher = SHA256()
                hasher.update(bytes[start..<min(bytes.count, start + MediaReads.blockSize)])
                #expect(block.sha256 == hasher.finish(), "block \(block.block)")
                #expect(block.isCopy && block.path == copy.path && block.version == pins["clip"]?.stamp?.version)
            }

            let handle = try FileHandle(forUpdating: copy)
            try handle.seekToEnd()
            try handle.write(contentsOf: [0])
            try handle.close()
            let longer = MediaReads(project: project, pins: pins, assets: ["clip"])
            let error = #expect(throws: MediaChangedError.self) {
                _ = try VideoReader(path: copy.path, info: try MediaProbe.probe(path: copy.path), reads: longer)
            }
            #expect(error?.description == "assets.clip: media changed since the job was submitted (\(copy.path))")
        }
    }
}
