import FarmCore

/// Pins media files and checks them against their pins, hashing each version of a file once:
/// a digest is looked up by path and `FileStamp` before the file is read again. The lookup is
/// the caller's (the farm database's table at submit, memory on a worker).
public struct MediaPinning {
    /// Finds a digest stored for this path and stamp.
    public var lookup: (String, FileStamp) throws -> String?
    /// Keeps a digest just computed.
    public var remember: (String, FileStamp, String) throws -> Void

    public init(
        lookup: @escaping (String, FileStamp) throws -> String?,
        remember: @escaping (String, FileStamp, String) throws -> Void
    ) {
        self.lookup = lookup
        self.remember = remember
    }

    /// A pinning that remembers digests in memory, for one process's life (a worker's).
    public static func inMemory() -> MediaPinning {
        let digests = Locked<[String: (FileStamp, String)]>([:])
        return MediaPinning(
            lookup: { path, stamp in
                digests.withLock { $0[path].flatMap { $0.0 == stamp ? $0.1 : nil } }
            },
            remember: { path, stamp, digest in digests.withLock { $0[path] = (stamp, digest) } })
    }

    /// The pin of the file at `path` as it is now.
    public func pin(path: String) throws -> MediaPin {
        guard let stamp = FileStamp(path: path) else {
            throw FFmpegError(operation: "pin", message: "cannot read \(path)")
        }
        return try pin(path: path, stamp: stamp)
    }

    /// The pin of the file at `path`, whose stamp was just read.
    private func pin(path: String, stamp: FileStamp) throws -> MediaPin {
        if let digest = try lookup(path, stamp) { return MediaPin(size: stamp.size, sha256: digest) }
        let digest = try SHA256.file(path)
        // Changed while it was read: the digest may mix two versions, so it is not kept.
        if FileStamp(path: path) == stamp { try remember(path, stamp, digest) }
        return MediaPin(size: stamp.size, sha256: digest)
    }

    /// Pins of every asset of `project`, by asset id.
    public func pins(of project: Project) throws -> [String: MediaPin] {
        try project.assets.mapValues { try pin(path: $0.path) }
    }

    /// Throws `MediaChangedError` unless each of `assets` that has a pin is still that version.
    /// A different size needs no hashing at all.
    public func check(_ assets: Set<String>, of project: Project, against pins: [String: MediaPin]) throws {
        for id in assets.sorted() {
            guard let pinned = pins[id], let path = project.assets[id]?.path else { continue }
            // A file this worker cannot see is for the probe to report ("cannot read").
            guard let stamp = FileStamp(path: path) else { continue }
            let changed = MediaChangedError(asset: id, path: path)
            guard stamp.size == pinned.size, try pin(path: path, stamp: stamp).sha256 == pinned.sha256 else {
                throw changed
            }
        }
    }
}
