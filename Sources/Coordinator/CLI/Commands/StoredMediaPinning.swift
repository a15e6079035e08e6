import FarmCore
import FarmMedia
import FarmStore

extension MediaPinning {
    /// Pinning whose digests are kept in the farm database, shared by every submitter.
    static func stored(in store: FarmStore) -> MediaPinning {
        MediaPinning(
            lookup: { try store.mediaDigest(path: $0, stamp: $1) },
            remember: { try store.rememberMediaDigest(path: $0, stamp: $1, sha256: $2) })
    }
}

extension JobSubmission {
    /// The submission with every asset pinned at its current version.
    func pinned(in store: FarmStore, project: Project) throws -> JobSubmission {
        var pinned = self
        pinned.mediaPins = try MediaPinning.stored(in: store).pins(of: project)
        return pinned
    }
}
