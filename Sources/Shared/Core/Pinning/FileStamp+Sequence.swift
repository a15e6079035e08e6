extension FileStamp {
    /// One stamp for all the frames a numbered-frames pattern finds in its folder: their sizes
    /// summed, the latest modification and status-change times, and a digest of every frame's
    /// number, inode, size and times in the inode's place. Writing, replacing, adding or
    /// removing any frame changes it. It costs a listing of the folder and a `stat` per frame
    /// (docs/project-format.md, "Numbered frames"). Nil when no frame can be read.
    public init?(frames pattern: FramePattern) {
        let numbers = pattern.numbersPresent()
        var size: Int64 = 0
        var modified: Int64 = 0
        var changed: Int64 = 0
        // FNV-1a over each frame's fields, 64 bits: equal folds name equal sets of versions.
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: Int64) {
            var bits = UInt64(bitPattern: value)
            for _ in 0..<8 {
                digest = (digest ^ (bits & 0xff)) &* 0x100_0000_01b3
                bits >>= 8
            }
        }
        for number in numbers {
            guard let frame = FileStamp(path: pattern.path(number)) else { return nil }
            size += frame.size
            modified = max(modified, frame.modified)
            changed = max(changed, frame.changed)
            for field in [Int64(number), frame.inode, frame.size, frame.modified, frame.changed] { mix(field) }
        }
        guard !numbers.isEmpty else { return nil }
        self.init(size: size, modified: modified, changed: changed, inode: Int64(bitPattern: digest), device: 0)
    }

    /// The stamp of an asset's media now: its file's, or all its numbered frames'.
    public init?(asset: Asset) {
        if let pattern = asset.framePattern {
            self.init(frames: pattern)
        } else {
            self.init(path: asset.path)
        }
    }
}
