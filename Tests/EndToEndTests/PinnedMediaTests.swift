import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A job renders from the media as submitted or fails: a clip rewritten in place or replaced
/// with its old size and modification time is caught by its stamp on the workers, and a block
/// whose bytes differ from what another render of that version read is caught by its digest.
@Suite struct PinnedMediaTests {
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case rewrittenInPlace = "rewritten in place"
        case replaced = "replaced by a rename"
        var testDescription: String { rawValue }
    }

    /// Changes the clip after submission without moving its size or mtime.
    static func change(_ clip: URL, _ how: Change) throws {
        let before = try #require(FileStamp(path: clip.path))
        var bytes = try Data(contentsOf: clip)
        bytes[bytes.count / 2] ^= 0xff
        // Past the coarse clock's tick, so the ctime can move.
        Thread.sleep(forTimeInterval: 0.02)
        switch how {
        case .rewrittenInPlace:
            let handle = try FileHandle(forUpdating: clip)
            try handle.seek(toOffset: UInt64(bytes.count / 2))
            try handle.write(contentsOf: [bytes[bytes.count / 2]])
            try handle.close()
        case .replaced:
            let other = clip.deletingLastPathComponent().appendingPathComponent("c-new.mp4")
            try bytes.write(to: other)
            #expect(rename(other.path, clip.path) == 0)
        }
        let time = timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000))
        var times = [time, time]
        #expect(utimensat(AT_FDCWD, clip.path, &times, 0) == 0)
        let after = try #require(FileStamp(path: clip.path))
        #expect(after.size == before.size && after.modified == before.modified)
    }

    /// The seam project submitted in 30-frame chunks with no farm running yet: its clip c.mp4
    /// is shown by chunk 1 only. Runs `body` with the farm, the job and the clip, then starts
    /// the farm and expects the job to fail as the clip's media changed, writing nothing; then
    /// `afterwards`, with the farm.
    static func expectChangedClip(
        _ body: (TestFarm, URL) throws -> Void, afterwards: (TestFarm) throws -> Void = { _ in }
    ) throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let clip = dir.appendingPathComponent("c.mp4")
            try body(farm, clip)
            try farm.startCoordinator()
            for id in ["w1", "w2"] { try farm.startWorker(id) }
            let record = try farm.finish(job)
            #expect(record.state == .failed)
            #expect(record.error == "assets.c: media changed since the job was submitted (\(clip.path))")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            try afterwards(farm)
        }
    }

    @Test(arguments: Change.allCases)
    func aClipChangedWithItsOldSizeAndModificationTimeFailsTheJob(_ how: Change) throws {
        try Self.expectChangedClip { _, clip in try Self.change(clip, how) }
    }

    /// What a stamp cannot see (a clock set back before a rewrite, a stale network cache) shows
    /// as a block whose digest differs from the one another render of the version recorded.
    /// Here the record says every block of the clip read otherwise elsewhere.
    @Test func aBlockThatReadsOtherwiseThanElsewhereFailsTheJob() throws {
        var version = ""
        try Self.expectChangedClip { farm, clip in
            let stamp = try #require(FileStamp(path: clip.path))
            version = stamp.version
            for block in 0...(stamp.size / Int64(MediaReads.blockSize)) {
                try farm.store.connection.query(
                    "INSERT INTO media_blocks (version, block, sha256) VALUES ($1, $2, $3)",
                    [version, String(block), String(repeating: "0", count: 64)])
            }
        } afterwards: { farm in
            // The other media the failing chunk read (the overlaid b) was recorded as it is.
            let recorded = try farm.store.connection.query(
                "SELECT count(*) FROM media_blocks WHERE version <> $1 AND sha256 ~ '^[0-9a-f]{64}$'", [version])
            #expect(try #require(recorded.first).int(0) >= 1)
        }
    }
}
