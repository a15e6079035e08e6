import FarmCore

/// Digests of the pinned blocks this process has hashed, by file version (its stamp): a block
/// read again, by this render or a later one (a header every task opens, the music under
/// consecutive audio blocks), is not hashed again while the file's stamp, checked after every
/// read, has not moved. The digest of a version's block is computed once per worker, as the
/// coordinator records it once per farm. A change that keeps the stamp (inside one ctime tick,
/// or behind a network file system's attribute cache) is then seen by the first process to
/// hash the block, not by every read.
package enum BlockDigests {
    private static let known = Locked<[Key: String]>([:])
    /// About 10 MB of digests; when full, the table starts over.
    private static let limit = 65_536

    private struct Key: Hashable {
        var path: String
        var version: String
        var block: Int64
    }

    /// The SHA-256 of `bytes`, block `block` of `path` at `version`; from the table if this
    /// process hashed it before. A pin from before stamps (size only) names no version: its
    /// blocks are hashed every time.
    package static func digest(path: String, version: String?, block: Int64, of bytes: [UInt8]) -> String {
        let key = version.map { Key(path: path, version: $0, block: block) }
        if let key, let digest = known.withLock({ $0[key] }) { return digest }
        let hasher = SHA256()
        hasher.update(bytes)
        let digest = hasher.finish()
        guard let key else { return digest }
        known.withLock { table in
            if table.count >= limit { table.removeAll(keepingCapacity: true) }
            table[key] = digest
        }
        return digest
    }
}
