import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// The first render to read a block of a version records its digest; every later one must
/// match it, in any job; another version of the file is another set of blocks. A copy's
/// digests are held against the record, never recorded.
@Suite struct MediaBlocksTests {
    static func block(_ version: String, _ index: Int64, _ digest: String, copy: Bool = false) -> MediaReads.Block {
        MediaReads.Block(
            asset: "clip", path: copy ? "/node/clip.mov" : "/media/clip.mov", version: version, block: index,
            sha256: digest, copy: copy)
    }

    @Test func theFirstReadOfABlockIsRecordedAndEveryLaterOneMustMatch() throws {
        let store = try FarmStore(url: try TestDatabase.create())
        #expect(try store.checkMediaBlocks([]).changed == nil)
        #expect(try store.checkMediaBlocks([Self.block("v1", 0, "aa"), Self.block("v1", 1, "bb")]).changed == nil)
        #expect(try store.checkMediaBlocks([Self.block("v1", 1, "bb"), Self.block("v1", 2, "cc")]).changed == nil)
        let changed = try store.checkMediaBlocks([Self.block("v1", 2, "cc"), Self.block("v1", 0, "ab")]).changed
        #expect(changed?.description == "assets.clip: media changed since the job was submitted (/media/clip.mov)")
        // Another version (the file rewritten, so another ctime) starts its own record.
        #expect(try store.checkMediaBlocks([Self.block("v2", 0, "ab")]).changed == nil)
        let recorded = try store.connection.query("SELECT version, block, sha256 FROM media_blocks ORDER BY 1, 2")
            .map(Self.describe)
        #expect(recorded == ["v1 0 aa", "v1 1 bb", "v1 2 cc", "v2 0 ab"])
    }

    @Test func aCopysBlocksAreHeldAgainstTheRecordAndThoseItLacksComeBackUnsettled() throws {
        let store = try FarmStore(url: try TestDatabase.create())
        #expect(try store.checkMediaBlocks([Self.block("v1", 0, "aa")]).changed == nil)
        // Block 0 agrees with the record; block 1 has none: never recorded from a copy.
        let first = try store.checkMediaBlocks([
            Self.block("v1", 0, "aa", copy: true), Self.block("v1", 1, "b?", copy: true),
        ])
        #expect(first.changed == nil)
        #expect(first.unsettled == [Self.block("v1", 1, "b?", copy: true)])
        // A copy's first read of a block is no record: a reader of the version sets it.
        #expect(try store.checkMediaBlocks([Self.block("v1", 1, "bb")]).changed == nil)
        let second = try store.checkMediaBlocks([Self.block("v1", 1, "b?", copy: true)])
        #expect(second.unsettled.isEmpty)
        #expect(
            second.changed?.description == "assets.clip: media changed since the job was submitted (/node/clip.mov)")
        let recorded = try store.connection.query("SELECT version, block, sha256 FROM media_blocks ORDER BY 1, 2")
            .map(Self.describe)
        #expect(recorded == ["v1 0 aa", "v1 1 bb"])
    }

    /// A recorded block as "version block sha256".
    static func describe(_ row: PostgresRow) throws -> String {
        "\(try row.decode("version", as: String.self)) \(try row.decode("block", as: Int64.self)) "
            + (try row.decode("sha256", as: String.self))
    }
}
