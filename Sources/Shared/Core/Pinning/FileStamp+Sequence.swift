extension FileStamp {
    /// One stamp for all the frames a numbered-frames pattern finds in its folder: their sizes
    /// summed, the latest modification and status-change times, and a digest of every frame's
    /// number, inode, size and times in the inode's place. Writing, replacing, adding or
    /// removing any frame changes it. It costs a listing of the folder and a `stat` per frame
    /// (docs/project-format.md, "Numbered frames"). Nil when no frame can be read.
    public init?(frames pattern: FramePattern) {
        guard let (stamp, _) = Self.sequence(pattern, firstFrame: nil) else { return nil }
        self = stamp
    }

    /// The stamp of an asset's media now: its file's, or all its numbered frames'.
    public init?(asset: Asset) {
        if let pattern = asset.framePattern {
            self.init(frames: pattern)
        } else {
            self.init(path: asset.path)
        }
    }

    /// The whole sequence's stamp (`init(frames:)`) and, from the same listing and `stat`s,
    /// the digest of each block of frame numbers and the run played from `firstFrame` (the
    /// lowest number when nil), as `MediaPin.FrameBlocks` holds them.
    public static func sequence(_ pattern: FramePattern, firstFrame: Int?) -> (FileStamp, MediaPin.FrameBlocks)? {
        let numbers = pattern.numbersPresent()
        guard !numbers.isEmpty else { return nil }
        var size: Int64 = 0
        var modified: Int64 = 0
        var changed: Int64 = 0
        var whole = FrameFold()
        var blocks: [Int: FrameFold] = [:]
        for number in numbers {
            guard let frame = FileStamp(path: pattern.path(number)) else { return nil }
            size += frame.size
            modified = max(modified, frame.modified)
            changed = max(changed, frame.changed)
            whole.mix(number, frame)
            blocks[MediaPin.FrameBlocks.block(of: number), default: FrameFold()].mix(number, frame)
        }
        let stamp = FileStamp(
            size: size, modified: modified, changed: changed, inode: Int64(bitPattern: whole.digest), device: 0)
        let run = FramePattern.run(in: numbers, from: firstFrame)
        return (stamp, MediaPin.FrameBlocks(digests: blocks.mapValues(\.text), run: run))
    }

    /// The digest of block `block` of a sequence's frame numbers as the frames are now: a
    /// `stat` of each number the block spans, the absent ones left out as the listing leaves
    /// them out. What a worker holds against the pinned block before reading a frame of it.
    public static func frameBlock(_ block: Int, of pattern: FramePattern) -> String {
        var fold = FrameFold()
        let start = block * MediaPin.FrameBlocks.frames
        for number in start..<start + MediaPin.FrameBlocks.frames {
            if let frame = FileStamp(path: pattern.path(number)) { fold.mix(number, frame) }
        }
        return fold.text
    }
}

/// FNV-1a over frames' numbers, inodes, sizes and times, 64 bits: equal folds name equal sets
/// of versions.
public struct FrameFold: Sendable {
    var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    mutating func mix(_ number: Int, _ frame: FileStamp) {
        for field in [Int64(number), frame.inode, frame.size, frame.modified, frame.changed] {
            var bits = UInt64(bitPattern: field)
            for _ in 0..<8 {
                digest = (digest ^ (bits & 0xff)) &* 0x100_0000_01b3
                bits >>= 8
            }
        }
    }

    public var text: String {
        let hex = String(digest, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
