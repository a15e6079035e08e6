#if canImport(Glibc)
    import Glibc
#endif

/// The coordinator's reader of the pinned versions of a job's assets, at the paths the job was
/// submitted with: where the file there still has the pinned stamp, before and after the
/// blocks are read, its digests are the version's own. Only the blocks asked for are read, and
/// each digest is computed once per process and version (`known`).
public final class PinnedOriginals: PinnedVersionReader {
    private let paths: [String: String]
    private let pins: [String: MediaPin]
    private static let known = Locked<[Key: String]>([:])
    /// About 10 MB of digests; when full, the table starts over.
    private static let limit = 65_536

    private struct Key: Hashable {
        var version: String
        var block: Int64
    }

    /// Readers of `pins` (by asset id) at `paths` (by asset id), as the job's project names them.
    public init(paths: [String: String], pins: [String: MediaPin]) {
        self.paths = paths
        self.pins = pins
    }

    public func digests(asset: String, blocks: [Int64]) -> PinnedDigests {
        guard let path = paths[asset], let pin = pins[asset], let version = pin.stamp?.version else {
            return .unreadable("the job pins no version of it")
        }
        // Digests once read from the pinned version stay its digests, whatever the file is now.
        var found = Self.known.withLock { known in
            Dictionary(
                uniqueKeysWithValues: blocks.compactMap { block in
                    known[Key(version: version, block: block)].map { (block, $0) }
                })
        }
        let missing = blocks.filter { found[$0] == nil }
        guard !missing.isEmpty else { return .read(path: path, digests: found) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .unreadable("the coordinator cannot read \(path)") }
        defer { close(descriptor) }
        guard let before = FileStamp(descriptor: descriptor) else {
            return .unreadable("the coordinator cannot stat \(path)")
        }
        guard pin.admits(before) else { return .changed(path: path) }
        var bytes = [UInt8](repeating: 0, count: MediaReads.blockSize)
        for block in missing {
            let start = block * Int64(MediaReads.blockSize)
            let length = Int(max(0, min(Int64(MediaReads.blockSize), before.size - start)))
            guard length > 0 else { continue }
            let read: Int
            do {
                read = try bytes.withUnsafeMutableBytes { bytes in
                    try SystemCall.read(descriptor, into: bytes, count: length, at: start, path: path)
                }
            } catch {
                // Failed while read: perhaps another version.
                if let now = FileStamp(descriptor: descriptor), !pin.admits(now) { return .changed(path: path) }
                return .unreadable("the coordinator cannot read the file: \(error)")
            }
            // Cut short while read: another version.
            guard read == length else { return .changed(path: path) }
            let hasher = SHA256()
            bytes.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
            found[block] = hasher.finish()
        }
        // A write while the blocks were read moves the stamp: what was read is not the version.
        guard let after = FileStamp(descriptor: descriptor), pin.admits(after) else { return .changed(path: path) }
        Self.known.withLock { table in
            if table.count >= Self.limit { table.removeAll(keepingCapacity: true) }
            for block in missing { table[Key(version: version, block: block)] = found[block] }
        }
        return .read(path: path, digests: found)
    }
}
