/// What an attempt made of its work item, in the item's unit: a video chunk's frames (and how
/// fast they came), an audio block's timeline samples. Never one counted as the other.
public enum WorkMade: Sendable, Hashable {
    case frames(Int64, fps: Double)
    case samples(Int64)

    /// The frames made; none for an audio block.
    public var frames: Int64 {
        if case .frames(let count, _) = self { count } else { 0 }
    }

    /// Frames per second; nil for an audio block, whose speed is its sound's seconds over the
    /// attempt's.
    public var fps: Double? {
        if case .frames(_, let fps) = self { fps } else { nil }
    }

    /// How a log line says it: "60 frames at 12.5 fps" or "10.000 s of sound (480000 samples)".
    public func description(sampleRate: Int) -> String {
        switch self {
        case .frames(let count, let fps): "\(count) frames at \(String(format: "%.1f", fps)) fps"
        case .samples(let count):
            "\(String(format: "%.3f", Double(count) / Double(max(1, sampleRate)))) s of sound (\(count) samples)"
        }
    }
}
