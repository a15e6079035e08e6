/// A half-open range of output frames `[start, end)` that one worker renders with a fresh encoder.
public struct Chunk: Sendable, Codable, Hashable {
    public var index: Int
    public var start: Int64
    public var end: Int64

    public init(index: Int, start: Int64, end: Int64) {
        self.index = index
        self.start = start
        self.end = end
    }

    public var frames: Range<Int64> { start..<end }
    public var frameCount: Int64 { end - start }
}
