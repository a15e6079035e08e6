import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A job renders from the media as submitted or fails: a clip rewritten in place or replaced
/// with its old size and modification time is caught by its stamp, and a block whose bytes
/// differ from what another render of that version read is caught by its digest. Workers that
/// read their own copy of the media (another inode, ctime and path) render from it where every
/// block they read agrees with the submitted version's.
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

    /// A clip overwritten with bytes no demuxer reads, keeping its size: every worker finds a
    /// copy (the pinned size, another stamp) that it cannot even probe, and the coordinator,
    /// holding the clip against its pin, fails the job as changed rather than as undecodable.
    @Test func aClipOverwrittenWithUndecodableBytesOfItsSizeFailsAsChanged() throws {
        try Self.expectChangedClip { _, clip in
            let size = try #require(FileStamp(path: clip.path)).size
            // Past the coarse clock's tick, so the ctime moves.
            Thread.sleep(forTimeInterval: 0.02)
            try Data(count: Int(size)).write(to: clip)
            #expect(try #require(FileStamp(path: clip.path)).size == size)
        }
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
            #expect(try #require(recorded.first).decode("count", as: Int64.self) >= 1)
        }
    }

    /// Copies `names` from `dir` into `dir/node` as `rsync -a` would: same bytes, size and
    /// mtime; another inode, ctime and path. Returns the folder.
    static func nodeCopy(of names: [String], in dir: URL) throws -> URL {
        let node = dir.appendingPathComponent("node")
        try FileManager.default.createDirectory(at: node, withIntermediateDirectories: true)
        for name in names {
            let (from, to) = (dir.appendingPathComponent(name), node.appendingPathComponent(name))
            #expect(try run("/bin/cp", ["--preserve=timestamps", from.path, to.path]).status == 0)
            let (original, copy) = (try #require(FileStamp(path: from.path)), try #require(FileStamp(path: to.path)))
            #expect(copy.size == original.size && copy.modified == original.modified)
            #expect(copy.inode != original.inode && copy.changed != original.changed)
        }
        return node
    }

    /// The SHA-256 of each 4 MiB block of `file`, by index.
    static func blockDigests(_ file: URL) throws -> [Int64: String] {
        let bytes = try Data(contentsOf: file)
        var digests: [Int64: String] = [:]
        for (index, start) in stride(from: 0, to: bytes.count, by: MediaReads.blockSize).enumerated() {
            let hasher = SHA256()
            hasher.update(bytes[start..<min(bytes.count, start + MediaReads.blockSize)])
            digests[Int64(index)] = hasher.finish()
        }
        return digests
    }

    /// Workers whose --media-root holds a copy of the media render the job, and the output is
    /// what `farm render --local` makes from the originals. What they read of their copies is
    /// checked against the submitted version's digests, which the coordinator read from the
    /// originals (every worker here reads a copy), and only those are recorded.
    @Test func workersReadingAnIdenticalCopyRenderTheJobAsTheOriginalsWould() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let local = dir.appendingPathComponent("local.mov")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
            let assets = ["a": "a.mp4", "b": "b.mp4", "c": "c.mp4", "music": "music.wav"]
            let node = try Self.nodeCopy(of: Array(assets.values), in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            try farm.startCoordinator()
            for id in ["w1", "w2"] { try farm.startWorker(id, arguments: ["--media-root", node.path]) }
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == frameHashes(local))
            #expect(try audioHash(output) == audioHash(local))
            for (asset, name) in assets.sorted(by: { $0.key < $1.key }) {
                let original = dir.appendingPathComponent(name)
                let version = try #require(FileStamp(path: original.path)).version
                let recorded = try farm.store.connection.query(
                    "SELECT block, sha256 FROM media_blocks WHERE version = $1", [version])
                let expected = try Self.blockDigests(original)
                #expect(!recorded.isEmpty, "\(asset): no block of the submitted version recorded")
                for row in recorded {
                    let block: Int64 = try row.decode("block")
                    #expect(try row.decode("sha256", as: String.self) == expected[block], "\(asset) block \(block)")
                }
            }
            // Nothing but the submitted versions: a copy's digests are checked, never recorded.
            let versions = try farm.store.connection.query("SELECT DISTINCT version FROM media_blocks").count
            #expect(versions == assets.count)
        }
    }

    /// 60 s of raw 160x90 video, clipA.mkv: about 39 MB, ten blocks; the project shows 29.5 s
    /// to 31.5 s of it, in the middle of the file, in two 30-frame chunks.
    static func rawClipProject(in dir: URL) throws -> URL {
        try TestMedia.make(
            "clipA.mkv", in: dir, video: "testsrc2=size=160x90:rate=30:duration=60",
            codec: ["-c:v", "rawvideo"])
        let project = dir.appendingPathComponent("project.json")
        try Data(
            """
            {"output": {"width": 160, "height": 90, "fps": "30"},
             "export": {"container": "mov", "video": {"codec": "h264", "lossless": true}},
             "assets": {"clipA": {"path": "clipA.mkv"}},
             "tracks": [{"kind": "video", "items": [
               {"asset": "clipA", "at": "0", "duration": "2", "source": {"start": "29.5"}}]}]}
            """.utf8
        ).write(to: project)
        return project
    }

    enum Record: String, CaseIterable, CustomTestStringConvertible {
        case cold = "no block recorded yet"
        case warm = "blocks recorded by an earlier render of the originals"
        var testDescription: String { rawValue }
    }

    /// A copy that differs in one block of the video a chunk reads (its size and mtime kept)
    /// fails the job as the media changed, naming the asset and the copy: cold, the coordinator
    /// reads that block from the original to compare; warm, an earlier job rendered from the
    /// originals recorded it.
    @Test(arguments: Record.allCases)
    func aCopyWithOneChangedBlockWhereAChunkReadsFailsTheJob(_ record: Record) throws {
        try withTemporaryDirectory { dir in
            let project = try Self.rawClipProject(in: dir)
            let node = try Self.nodeCopy(of: ["clipA.mkv"], in: dir)
            let copy = node.appendingPathComponent("clipA.mkv")
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            if record == .warm {
                let first = try farm.submit(
                    project, output: dir.appendingPathComponent("first.mov"), chunkArguments: ["--chunk-frames", "30"])
                let original = try farm.startWorker("w0")
                #expect(try farm.finish(first).state == .done)
                original.stop()
            }
            let original = dir.appendingPathComponent("clipA.mkv")
            let recordedBefore = try farm.store.connection.query(
                "SELECT block FROM media_blocks WHERE version = $1",
                [try #require(FileStamp(path: original.path)).version]
            ).map { try $0.decode("block", as: Int64.self) }
            try Self.change(copy, .rewrittenInPlace)
            let middle = Int64(try #require(fileSize(copy)) / 2) / Int64(MediaReads.blockSize)
            #expect(middle >= 3, "the change must lie in a block of the video stream, past the header")
            #expect(recordedBefore.contains(middle) == (record == .warm))
            let output = dir.appendingPathComponent("out.mov")
            // Rendered again, not taken from the segment cache the first job filled.
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30", "--no-cache"])
            for id in ["w1", "w2"] { try farm.startWorker(id, arguments: ["--media-root", node.path]) }
            let result = try farm.finish(job)
            #expect(result.state == .failed)
            #expect(result.error == "assets.clipA: media changed since the job was submitted (\(copy.path))")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            // The copy's digest of the changed block was never taken for the version's.
            let recorded = try farm.store.connection.query(
                "SELECT sha256 FROM media_blocks WHERE version = $1 AND block = $2",
                [try #require(FileStamp(path: original.path)).version, String(middle)]
            ).map { try $0.decode("sha256", as: String.self) }
            let (pinned, copied) = (try Self.blockDigests(original)[middle], try Self.blockDigests(copy)[middle])
            #expect(pinned != copied)
            #expect(recorded.allSatisfy { $0 == pinned }, "\(recorded)")
        }
    }

    /// Where no reader of the submitted version is left, a copy cannot be checked and is not
    /// trusted: with the originals moved away after submission (the coordinator cannot read
    /// the job's path, and no worker reads it), each attempt fails and the job fails after its
    /// retries, naming the copy and the block.
    @Test func aCopyNoReaderOfTheSubmittedVersionCanCheckIsNotTrusted() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.rawClipProject(in: dir)
            let node = try Self.nodeCopy(of: ["clipA.mkv"], in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            let original = dir.appendingPathComponent("clipA.mkv")
            try FileManager.default.moveItem(at: original, to: dir.appendingPathComponent("moved.mkv"))
            try farm.startCoordinator()
            for id in ["w1", "w2"] { try farm.startWorker(id, arguments: ["--media-root", node.path]) }
            let result = try farm.finish(job)
            #expect(result.state == .failed)
            let error = try #require(result.error)
            #expect(
                error.hasSuffix(
                    """
                    assets.clipA: cannot check the copy \(node.path)/clipA.mkv against the version the job was \
                    submitted with: no reader of that version has read block 0 (the coordinator cannot read \
                    \(original.path))
                    """), "\(error)")
            #expect(error.contains("failed on"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let recorded = try farm.store.connection.query("SELECT count(*) FROM media_blocks")
            #expect(try recorded.first?.decode("count", as: Int64.self) == 0, "a copy's digest is never recorded")
        }
    }
}
