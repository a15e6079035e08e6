/// A rate over the last few seconds rather than since the start: a chunk that took 8 s to
/// start and then renders 10 frames a second shows 10, not a lifetime average that climbs
/// toward it, and a worker that slowed down shows it at once.
public struct RateWindow: Sendable {
    public let seconds: Double
    private var samples: [(at: Double, count: Int64)] = []

    public init(seconds: Double = 5) {
        self.seconds = seconds
    }

    /// Notes that `count` things were done by `at` seconds (both only grow).
    public mutating func note(_ count: Int64, at: Double) {
        samples.append((at, count))
        // Keep one sample older than the window, to measure the whole window from it.
        while samples.count > 2, samples[1].at <= at - seconds { samples.removeFirst() }
    }

    public var isEmpty: Bool { samples.isEmpty }

    /// Things per second over the window; 0 until two samples a moment apart.
    public var rate: Double {
        guard let first = samples.first, let last = samples.last, last.at - first.at > 0 else { return 0 }
        return Double(last.count - first.count) / (last.at - first.at)
    }
}
