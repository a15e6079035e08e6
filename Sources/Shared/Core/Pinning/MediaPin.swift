/// The version of a media file a job was submitted with: its size and the SHA-256 of its whole
/// content. Workers render from exactly that version or not at all.
public struct MediaPin: Codable, Sendable, Hashable {
    public var size: Int64
    /// Lowercase hex.
    public var sha256: String

    public init(size: Int64, sha256: String) {
        self.size = size
        self.sha256 = sha256
    }
}

/// A pinned file differs from the one the job was submitted with. Rendering again cannot help,
/// so the job fails at once rather than after its retries.
public struct MediaChangedError: Error, Sendable, CustomStringConvertible {
    public let asset: String
    public let path: String

    public init(asset: String, path: String) {
        self.asset = asset
        self.path = path
    }

    public var description: String {
        "assets.\(asset): media changed since the job was submitted (\(path))"
    }
}
