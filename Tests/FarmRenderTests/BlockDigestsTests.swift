import FarmCore
import FarmMedia
import Testing

/// A block's digest is computed once per process and file version: the trust the docs state.
@Suite struct BlockDigestsTests {
    static func sha256(_ bytes: [UInt8]) -> String {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    @Test func aVersionsBlockIsHashedOnceAndAnotherVersionAnew() {
        let path = "/media/block-digests-test-\(UInt64.random(in: 0...UInt64.max)).mov"
        let first: [UInt8] = Array(repeating: 1, count: 4096)
        let second: [UInt8] = Array(repeating: 2, count: 4096)

        #expect(BlockDigests.digest(path: path, version: "v1", block: 3, of: first) == Self.sha256(first))
        // Same version, same block: the digest this process computed stands (the stamp, checked
        // after every read, is what says the bytes are the same).
        #expect(BlockDigests.digest(path: path, version: "v1", block: 3, of: second) == Self.sha256(first))
        // Another block, another version, or no version: hashed from the bytes given.
        #expect(BlockDigests.digest(path: path, version: "v1", block: 4, of: second) == Self.sha256(second))
        #expect(BlockDigests.digest(path: path, version: "v2", block: 3, of: second) == Self.sha256(second))
        #expect(BlockDigests.digest(path: path, version: nil, block: 3, of: second) == Self.sha256(second))
        #expect(BlockDigests.digest(path: path, version: nil, block: 3, of: first) == Self.sha256(first))
    }
}
