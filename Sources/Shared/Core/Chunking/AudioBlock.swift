/// A half-open range of timeline sound samples `[start, end)` that one worker mixes and encodes
/// with a fresh encoder (`AudioBlocks` plans them). Samples, not frames: a block's span is
/// counted at the output's sample rate, which no video frame rate divides.
public struct AudioBlock: Sendable, Codable, Hashable {
    public var index: Int
    public var start: Int64
    public var end: Int64

    public init(index: Int, start: Int64, end: Int64) {
        self.index = index
        self.start = start
        self.end = end
    }

    public var samples: Range<Int64> { start..<end }
    public var sampleCount: Int64 { end - start }
}
