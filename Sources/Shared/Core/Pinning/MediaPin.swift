/// The version of a media file a job was submitted with. Workers render from exactly that
/// version or not at all (`docs/architecture.md`, "Pinned media").
public struct MediaPin: Codable, Sendable, Hashable {
    public var size: Int64
    /// Nil only in pins stored before 0.7, which held a whole-file digest instead and are
    /// checked by size alone.
    public var stamp: FileStamp?

    public init(_ stamp: FileStamp) {
        size = stamp.size
        self.stamp = stamp
    }

    /// Whether the file that `now` stamps is the pinned version.
    public func admits(_ now: FileStamp) -> Bool {
        stamp.map { $0.isSameVersion(as: now) } ?? (size == now.size)
    }

    /// How a file a machine sees relates to the pin.
    public enum Match: Sendable, Equatable {
        /// The pinned version itself: what is read from it is the pinned bytes.
        case pinned
        /// The pinned size under another stamp (another inode, ctime or path: a per-node copy,
        /// another mount, or the file rewritten): what is read from it counts only where it
        /// agrees with the pinned version's digest of the same block.
        case copy
        /// Another size: another file.
        case changed
    }

    /// What the file that `now` stamps is to this pin. A pin from before stamps (size only)
    /// has no version to hold a copy's blocks against: it admits by size or not at all.
    public func match(_ now: FileStamp) -> Match {
        if admits(now) { return .pinned }
        return stamp != nil && now.size == size ? .copy : .changed
    }

    /// The pin of every asset of `project` as the files are now, by asset id: one `stat` each,
    /// whatever the files weigh (one per frame for numbered frames).
    public static func pins(of project: Project) throws -> [String: MediaPin] {
        try project.assets.mapValues { asset in
            guard let stamp = FileStamp(asset: asset) else { throw MediaUnreadableError(path: asset.path) }
            return MediaPin(stamp)
        }
    }
}

/// An asset that cannot be stat-ed at submission.
public struct MediaUnreadableError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public var description: String { "cannot read \(path)" }
}

/// A pinned file differs from the one the job was submitted with. Rendering again cannot help,
/// so the job fails at once rather than after its retries.
public struct MediaChangedError: Error, Sendable, Hashable, CustomStringConvertible {
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
