import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The first render to read a block of a version records its digest; every later one must
/// match it, in any job; another version of the file is another set of blocks.
@Suite struct MediaBlocksTests {
    static func block(_ version: String, _ index: Int64, _ digest: String) -> MediaReads.Block {
        MediaReads.Block(asset: "clip", path: "/media/clip.mov", version: version, block: index, sha256: digest)
    }

    @Test func theFirstReadOfABlockIsRecordedAndEveryLaterOneMustMatch() throws {
        let store = try FarmStore(url: try TestDatabase.create())
        #expect(try store.checkMediaBlocks([]) == nil)
        #expect(try store.checkMediaBlocks([Self.block("v1", 0, "aa"), Self.block("v1", 1, "bb")]) == nil)
        #expect(try store.checkMediaBlocks([Self.block("v1", 1, "bb"), Self.block("v1", 2, "cc")]) == nil)
        let changed = try store.checkMediaBlocks([Self.block("v1", 2, "cc"), Self.block("v1", 0, "ab")])
        #expect(changed?.description == "assets.clip: media changed since the job was submitted (/media/clip.mov)")
        // Another version (the file rewritten, so another ctime) starts its own record.
        #expect(try store.checkMediaBlocks([Self.block("v2", 0, "ab")]) == nil)
        let recorded = try store.connection.query("SELECT version, block, sha256 FROM media_blocks ORDER BY 1, 2")
            .map { "\($0.string(0)) \($0.int(1)) \($0.string(2))" }
        #expect(recorded == ["v1 0 aa", "v1 1 bb", "v1 2 cc", "v2 0 ab"])
    }
}
