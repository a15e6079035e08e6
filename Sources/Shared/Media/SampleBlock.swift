/// A block of float samples, one buffer per channel, owned by this object: what the mixer adds
/// voices into and the audio encoder reads. Allocated once and reused for every block.
///
/// Not thread-safe: one mixer owns it.
public final class SampleBlock {
    public let channels: Int
    /// Samples per channel the block can hold.
    public let capacity: Int
    let buffers: [UnsafeMutablePointer<Float>]

    public init(channels: Int, capacity: Int) {
        precondition(channels > 0 && capacity > 0, "SampleBlock needs channels and capacity")
        self.channels = channels
        self.capacity = capacity
        buffers = (0..<channels).map { _ in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            buffer.initialize(repeating: 0, count: capacity)
            return buffer
        }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// Sets the first `count` samples of every channel to silence.
    public func clear(count: Int) {
        precondition(count <= capacity)
        for buffer in buffers { buffer.update(repeating: 0, count: count) }
    }

    /// Sample `index` of `channel`.
    public subscript(channel: Int, index: Int) -> Float {
        get {
            precondition(channel < channels && index < capacity)
            return buffers[channel][index]
        }
        set {
            precondition(channel < channels && index < capacity)
            buffers[channel][index] = newValue
        }
    }
}
