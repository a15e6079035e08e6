/// The pinned version's digests of some blocks of one asset, as a reader of that version found
/// them, or why none could be had.
public enum PinnedDigests: Sendable, Equatable {
    /// Read from `path`, whose stamp matched the pin before and after: the version's own digests.
    case read(path: String, digests: [Int64: String])
    /// The file at `path` is no longer the pinned version (another size or stamp): the version
    /// the job was submitted with is gone from where it was submitted.
    case changed(path: String)
    /// No reader of the pinned version here (the path cannot be read, or no pin to read by).
    case unreadable(String)
}

/// What reads blocks of the pinned version of a job's assets: the coordinator's view of the
/// paths the job was submitted with (`PinnedOriginals`), or a test's stand-in.
public protocol PinnedVersionReader {
    /// The pinned version's digests of `blocks` of `asset`.
    func digests(asset: String, blocks: [Int64]) -> PinnedDigests
}

/// Settles the blocks a render read from a copy (`MediaPin.Match.copy`) for which no digest
/// of the pinned version was recorded: each is held against the digest a reader of the pinned
/// version computes for it. A copy is never trusted on its own word.
public enum CopyCheck {
    public enum Verdict: Sendable, Equatable {
        /// Every block agrees with the pinned version: `pinned` are the version's own digests,
        /// to record so no block is hashed from the original twice.
        case same(pinned: [MediaReads.Block])
        /// A block differs from the pinned version, or the pinned version is gone: the job
        /// fails, as rendering again cannot help.
        case changed(MediaChangedError)
        /// No reader of the pinned version could be had: the render cannot be trusted now, and
        /// may be once a reader of the pinned version has read the blocks.
        case unsettled(String)
    }

    /// The verdict on `blocks` (a copy's, unsettled) with the digests `reader` finds. A change
    /// anywhere outweighs an asset that cannot be checked.
    public static func settle(_ blocks: [MediaReads.Block], reader: PinnedVersionReader) -> Verdict {
        var pinned: [MediaReads.Block] = []
        var unsettled: String?
        for (asset, reads) in Dictionary(grouping: blocks, by: \.asset).sorted(by: { $0.key < $1.key }) {
            let indices = Array(Set(reads.map(\.block))).sorted()
            switch reader.digests(asset: asset, blocks: indices) {
            case .changed(let path):
                return .changed(MediaChangedError(asset: asset, path: path))
            case .unreadable(let reason):
                unsettled = unsettled ?? Self.unsettled(reads[0], reason: reason)
            case .read(let path, let digests):
                for read in reads.sorted(by: { $0.block < $1.block }) {
                    guard let digest = digests[read.block] else {
                        unsettled = unsettled ?? Self.unsettled(read, reason: "\(path) has no block \(read.block)")
                        continue
                    }
                    guard digest == read.sha256 else {
                        return .changed(MediaChangedError(asset: asset, path: read.path))
                    }
                    pinned.append(
                        MediaReads.Block(
                            asset: asset, path: path, version: read.version, block: read.block, sha256: digest))
                }
            }
        }
        if let unsettled { return .unsettled(unsettled) }
        return .same(pinned: pinned)
    }

    private static func unsettled(_ read: MediaReads.Block, reason: String) -> String {
        """
        assets.\(read.asset): cannot check the copy \(read.path) against the version the job was submitted \
        with: no reader of that version has read block \(read.block) (\(reason))
        """
    }
}
