import FarmCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A copy of pinned media (the pinned size under another stamp) counts only where its blocks
/// agree with the digests a reader of the pinned version computes; the coordinator's reader
/// (`PinnedOriginals`) reads those blocks, and only those, from a file with the pinned stamp.
@Suite struct CopyCheckTests {
    /// A reader of the pinned version that serves digests from a table, counting what it is asked.
    final class TableReader: PinnedVersionReader {
        var answers: [String: PinnedDigests]
        var asked: [(String, [Int64])] = []

        init(_ answers: [String: PinnedDigests]) { self.answers = answers }

        func digests(asset: String, blocks: [Int64]) -> PinnedDigests {
            asked.append((asset, blocks))
            return answers[asset] ?? .unreadable("no such asset")
        }
    }

    static func copied(_ asset: String, _ block: Int64, _ digest: String) -> MediaReads.Block {
        MediaReads.Block(
            asset: asset, path: "/node/\(asset).mov", version: "v-\(asset)", block: block, sha256: digest, copy: true)
    }

    static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        let hasher = SHA256()
        hasher.update(Array(bytes))
        return hasher.finish()
    }

    @Test func aCopyThatAgreesBlockForBlockIsSettledWithThePinnedVersionsDigests() {
        let reader = TableReader(["clip": .read(path: "/media/clip.mov", digests: [0: "aa", 3: "dd", 7: "hh"])])
        let verdict = CopyCheck.settle([Self.copied("clip", 3, "dd"), Self.copied("clip", 0, "aa")], reader: reader)
        // What is recorded is the version's own digest, read where the job was submitted from.
        #expect(
            verdict
                == .same(pinned: [
                    MediaReads.Block(asset: "clip", path: "/media/clip.mov", version: "v-clip", block: 0, sha256: "aa"),
                    MediaReads.Block(asset: "clip", path: "/media/clip.mov", version: "v-clip", block: 3, sha256: "dd"),
                ]))
        #expect(reader.asked.map(\.1) == [[0, 3]], "only the blocks the copy read are asked for")
    }

    @Test func aBlockThatDiffersFailsAsTheCopyChangedAndOutweighsAnAssetThatCannotBeChecked() {
        let reader = TableReader([
            "a": .unreadable("the coordinator cannot read /media/a.mov"),
            "b": .read(path: "/media/b.mov", digests: [0: "aa", 1: "bb"]),
        ])
        let verdict = CopyCheck.settle(
            [Self.copied("a", 0, "xx"), Self.copied("b", 0, "aa"), Self.copied("b", 1, "b!")], reader: reader)
        #expect(verdict == .changed(MediaChangedError(asset: "b", path: "/node/b.mov")))
        guard case .changed(let error) = verdict else { return }
        #expect(error.description == "assets.b: media changed since the job was submitted (/node/b.mov)")
    }

    @Test func aPinnedVersionThatIsGoneFailsAsChangedAndNoReaderLeavesTheCopyUnsettled() {
        let gone = TableReader(["clip": .changed(path: "/media/clip.mov")])
        #expect(
            CopyCheck.settle([Self.copied("clip", 2, "cc")], reader: gone)
                == .changed(MediaChangedError(asset: "clip", path: "/media/clip.mov")))
        let none = TableReader(["clip": .unreadable("the coordinator cannot read /media/clip.mov")])
        #expect(
            CopyCheck.settle([Self.copied("clip", 2, "cc")], reader: none)
                == .unsettled(
                    """
                    assets.clip: cannot check the copy /node/clip.mov against the version the job was submitted \
                    with: no reader of that version has read block 2 (the coordinator cannot read /media/clip.mov)
                    """))
    }

    @Test func aStampMatchIsThePinnedVersionASizeMatchACopyAndAnotherSizeAnotherFile() {
        let stamp = FileStamp(size: 10, modified: 1, changed: 2, inode: 3, device: 4)
        let pin = MediaPin(stamp)
        #expect(pin.match(FileStamp(size: 10, modified: 1, changed: 2, inode: 3, device: 9)) == .pinned)
        #expect(pin.match(FileStamp(size: 10, modified: 1, changed: 7, inode: 8, device: 4)) == .copy)
        #expect(pin.match(FileStamp(size: 11, modified: 1, changed: 2, inode: 3, device: 4)) == .changed)
        var old = pin
        old.stamp = nil
        #expect(old.match(FileStamp(size: 10, modified: 5, changed: 6, inode: 7, device: 8)) == .pinned)
        #expect(old.match(FileStamp(size: 12, modified: 1, changed: 2, inode: 3, device: 4)) == .changed)
    }

    /// Real files: the original, and a copy with its timestamps (another inode and ctime).
    @Test func theCoordinatorsReaderHashesTheBlocksAskedForFromTheOriginalOnlyWhileItIsThePinnedVersion() throws {
        try withTemporaryDirectory { dir in
            let original = dir.appendingPathComponent("clip.bin")
            let size = 2 * MediaReads.blockSize + 1000
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) }
            try Data(bytes).write(to: original)
            let stamp = try #require(FileStamp(path: original.path))
            let copy = dir.appendingPathComponent("copy/clip.bin")
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(try run("/bin/cp", ["--preserve=timestamps", original.path, copy.path]).status == 0)
            let copyStamp = try #require(FileStamp(path: copy.path))
            #expect(MediaPin(stamp).match(copyStamp) == .copy)

            let block = MediaReads.blockSize
            let expected: [Int64: String] = [
                0: Self.sha256(bytes[0..<block]), 2: Self.sha256(bytes[(2 * block)...]),
            ]
            // The original under the job's path: its blocks are the pinned version's.
            let reader = PinnedOriginals(paths: ["clip": original.path], pins: ["clip": MediaPin(stamp)])
            #expect(reader.digests(asset: "clip", blocks: [0, 2]) == .read(path: original.path, digests: expected))
            // A copy is not the pinned version: the coordinator never takes its bytes for it.
            let copyPin = MediaPin(FileStamp(size: stamp.size, modified: 1, changed: 2, inode: 3, device: 4))
            let atCopy = PinnedOriginals(paths: ["clip": copy.path], pins: ["clip": copyPin])
            #expect(atCopy.digests(asset: "clip", blocks: [1]) == .changed(path: copy.path))
            let missing = PinnedOriginals(paths: ["clip": dir.appendingPathComponent("none").path], pins: [:])
            #expect(missing.digests(asset: "clip", blocks: [0]) == .unreadable("the job pins no version of it"))

            // Rewritten in place: block 1 was never read from the pinned version, so it cannot
            // be had; blocks 0 and 2 were, and stay the version's digests.
            Thread.sleep(forTimeInterval: 0.02)
            let handle = try FileHandle(forUpdating: original)
            try handle.seek(toOffset: UInt64(block + 10))
            try handle.write(contentsOf: [0xff])
            try handle.close()
            #expect(reader.digests(asset: "clip", blocks: [1]) == .changed(path: original.path))
            #expect(reader.digests(asset: "clip", blocks: [2, 0]) == .read(path: original.path, digests: expected))
        }
    }
}
