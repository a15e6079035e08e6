/// The version of a media file a job was submitted with. Workers render from exactly that
/// version or not at all (`docs/architecture.md`, "Pinned media").
public struct MediaPin: Codable, Sendable, Hashable {
    public var size: Int64
    /// Nil only in pins stored before 0.7, which held a whole-file digest instead and are
    /// checked by size alone.
    public var stamp: FileStamp?
    /// For numbered frames: each block of frame numbers' own digest, so a worker checks the
    /// frames a chunk reads, a block at a time, not the whole sequence for every chunk. Nil
    /// for files, and in pins made before it (whose sequences are stamped whole).
    public var frameBlocks: FrameBlocks?

    public init(_ stamp: FileStamp, frameBlocks: FrameBlocks? = nil) {
        size = stamp.size
        self.stamp = stamp
        self.frameBlocks = frameBlocks
    }

    /// The pin of an asset's media as it is now; nil when it cannot be stat-ed.
    public init?(asset: Asset) {
        if let pattern = asset.framePattern {
            guard let (stamp, blocks) = FileStamp.sequence(pattern, firstFrame: asset.sequence?.firstFrame) else {
                return nil
            }
            self.init(stamp, frameBlocks: blocks)
        } else {
            guard let stamp = FileStamp(path: asset.path) else { return nil }
            self.init(stamp)
        }
    }

    /// The digests of a sequence's frames in blocks of `frames` consecutive numbers (block `k`
    /// holds numbers `k * frames` up to the next block's first), kept for the blocks that hold
    /// a frame: a stray far-numbered file adds one entry, not every block between.
    public struct FrameBlocks: Codable, Sendable, Hashable {
        public static let frames = 256

        /// 16 hex digits each (`FileStamp.frameBlock`), by block.
        public var digests: [Int: String]
        /// The frames the asset plays (its first and the end of the run from it, as the
        /// probe finds them), so a worker whose probe finds another run (a frame removed that
        /// no chunk reads) fails as changed.
        public var run: ClosedRange<Int>?

        public init(digests: [Int: String], run: ClosedRange<Int>?) {
            self.digests = digests
            self.run = run
        }

        public static func block(of number: Int) -> Int { number / frames }

        /// The pinned digest of block `block`: an empty block's when no frame was in it.
        public func digest(ofBlock block: Int) -> String { digests[block] ?? FrameFold().text }
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
            guard let pin = MediaPin(asset: asset) else { throw MediaUnreadableError(path: asset.path) }
            return pin
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
