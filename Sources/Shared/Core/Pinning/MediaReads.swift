/// The pinned media one render may read, and the digest of every fixed block it read.
///
/// A worker's readers check the stamp of each file they open and read it in whole blocks of
/// `blockSize`, hashing each block as it comes in (`PinnedFile`); the digests go back with the
/// result, and the coordinator holds them against the pinned version's digests of the same
/// blocks (`FarmStore.checkMediaBlocks`, `CopyCheck`). A file with the pinned stamp is the
/// pinned version, so its digests are the version's own; a copy's (`MediaPin.Match.copy`) only
/// count where they agree. A render thus reads what its demuxer asks for, rounded out to
/// blocks, and never a byte more.
public final class MediaReads: @unchecked Sendable {
    /// 4 MiB: large enough that hashing costs little per read, small enough that a seek into
    /// a camera original reads at most this much beyond what the demuxer wants.
    public static let blockSize = 4 << 20

    /// One block a render read: its index in the file and the SHA-256 of its bytes.
    public struct Block: Codable, Sendable, Hashable {
        public var asset: String
        /// Where the worker read it.
        public var path: String
        /// The pinned version (`FileStamp.version`).
        public var version: String
        public var block: Int64
        public var sha256: String
        /// True when read from a copy (the pinned size, another stamp): the digest is checked
        /// against the pinned version's, never recorded as one. Absent (nil) for a read of the
        /// pinned version itself, and from older workers, which read nothing else.
        public var copy: Bool?

        public init(asset: String, path: String, version: String, block: Int64, sha256: String, copy: Bool = false) {
            self.asset = asset
            self.path = path
            self.version = version
            self.block = block
            self.sha256 = sha256
            self.copy = copy ? true : nil
        }

        /// Whether the digest is a copy's, to be checked rather than recorded.
        public var isCopy: Bool { copy ?? false }
    }

    private struct Pinned {
        var asset: String
        var pin: MediaPin
    }

    private struct State {
        var digests: [String: [Int64: String]] = [:]
        /// Blocks of numbered frames checked against their pins, by the sequence's path.
        var checkedFrameBlocks: [String: Set<Int>] = [:]
        /// Paths some reader opened as a copy: all their blocks are checked as a copy's.
        var copies: Set<String> = []
        var failure: MediaChangedError?
        var cost = Cost()
    }

    /// What the reads cost: blocks fetched, bytes handed to demuxers, and the loads that did
    /// not follow the block before (a seek, or a file's first read).
    public struct Cost: Sendable, Equatable {
        public var blocks = 0
        public var blockBytes: Int64 = 0
        public var demuxedBytes: Int64 = 0
        public var jumps = 0

        public init() {}
    }

    private let pinned: [String: Pinned]
    /// The paths of the pinned numbered frames, by their pattern.
    private var sequences: [FramePattern: String] = [:]
    private let state = Locked(State())

    /// Reads of `assets` of `project`, each pinned by `pins` (by asset id); an asset without a
    /// pin is read as it is.
    public init(project: Project, pins: [String: MediaPin], assets: Set<String>) {
        var pinned: [String: Pinned] = [:]
        for id in assets {
            if let pin = pins[id], let path = project.assets[id]?.path { pinned[path] = Pinned(asset: id, pin: pin) }
        }
        self.pinned = pinned
        for (path, entry) in pinned where entry.pin.frameBlocks != nil {
            if let pattern = FramePattern(path: path) { sequences[pattern] = path }
        }
    }

    /// Reads of the one file at `path` as it is now, as a probe makes them: in blocks, and
    /// checked against its own stamp so one probe never mixes two versions either. Nil if the
    /// file cannot be stat-ed.
    public init?(probing path: String) {
        guard let stamp = FileStamp(path: path) else { return nil }
        pinned = [path: Pinned(asset: path, pin: MediaPin(stamp))]
    }

    /// Checks the pinned block of numbered frames (`MediaPin.FrameBlocks`) that holds frame
    /// `number` of the sequence `pattern` names, once per block per render, before the frame is
    /// read: one `stat` for each number the block spans. A sequence pinned without blocks was
    /// checked whole before the render.
    public func checkFrame(_ number: Int, of pattern: FramePattern) throws {
        guard let path = sequences[pattern], let blocks = pinned[path]?.pin.frameBlocks else { return }
        let block = MediaPin.FrameBlocks.block(of: number)
        guard !state.withLock({ $0.checkedFrameBlocks[path, default: []].contains(block) }) else { return }
        guard FileStamp.frameBlock(block, of: pattern) == blocks.digest(ofBlock: block) else {
            throw changed(path: path)
        }
        state.withLock { _ = $0.checkedFrameBlocks[path, default: []].insert(block) }
    }

    /// The pin the file at `path` must match, if it has one.
    public func pin(ofPath path: String) -> MediaPin? { pinned[path]?.pin }

    /// The error for a read of `path` that found another version; kept, so that a reader
    /// whose caller saw only an I/O error still fails the render as a changed file.
    @discardableResult
    public func changed(path: String) -> MediaChangedError {
        let error = MediaChangedError(asset: pinned[path]?.asset ?? path, path: path)
        state.withLock { $0.failure = $0.failure ?? error }
        return error
    }

    /// Records that block `index` of `path` hashed to `sha256`, read from a copy if `copy`; a
    /// block this render read before with other bytes means the file changed under it.
    public func read(path: String, block index: Int64, sha256: String, copy: Bool = false) throws {
        let earlier = state.withLock { state in
            if copy { state.copies.insert(path) }
            let earlier = state.digests[path]?[index]
            if earlier == nil { state.digests[path, default: [:]][index] = sha256 }
            return earlier
        }
        if let earlier, earlier != sha256 { throw changed(path: path) }
    }

    /// Counts a block of `bytes` fetched, `jump` if it did not follow the one fetched before.
    public func fetched(bytes: Int, jump: Bool) {
        state.withLock {
            $0.cost.blocks += 1
            $0.cost.blockBytes += Int64(bytes)
            if jump { $0.cost.jumps += 1 }
        }
    }

    /// Counts `bytes` handed to a demuxer.
    public func demuxed(bytes: Int) { state.withLock { $0.cost.demuxedBytes += Int64(bytes) } }

    public var cost: Cost { state.current.cost }

    /// The first change any reader found, if one did.
    public var failure: MediaChangedError? { state.current.failure }

    /// Every block read, by asset, in order.
    public var blocks: [Block] {
        let (digests, copies) = state.withLock { ($0.digests, $0.copies) }
        return digests.flatMap { path, blocks -> [Block] in
            // Pins from before 0.7 have no version to hold blocks against.
            guard let pinned = pinned[path], let version = pinned.pin.stamp?.version else { return [] }
            return blocks.map {
                Block(
                    asset: pinned.asset, path: path, version: version, block: $0.key, sha256: $0.value,
                    copy: copies.contains(path))
            }
        }.sorted { ($0.asset, $0.block) < ($1.asset, $1.block) }
    }
}
