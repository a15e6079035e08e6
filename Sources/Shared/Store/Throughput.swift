/// Frames per second measured over a sliding window of (time, frames done) samples: what the
/// ETA of a live view rests on. A window, not the whole run, so the estimate follows workers
/// joining or leaving; the whole run's rate stands in until the window spans enough time.
public struct Throughput: Sendable {
    /// Seconds of samples kept.
    public var window: Double
    /// The window must span at least this long before it is trusted.
    public var minimumSpan: Double
    private var samples: [(time: Double, frames: Int64)] = []

    public init(window: Double = 15, minimumSpan: Double = 3) {
        self.window = window
        self.minimumSpan = minimumSpan
    }

    /// Records frames done at `time` (seconds on any steady clock). Frames going back (a lost
    /// worker's partial chunk) restart the window, since the old samples no longer line up.
    public mutating func add(time: Double, frames: Int64) {
        if let last = samples.last, frames < last.frames { samples.removeAll() }
        samples.append((time, frames))
        samples.removeAll { time - $0.time > window }
    }

    /// Frames per second over the window, or nil while it spans less than `minimumSpan`.
    public var rate: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= minimumSpan else {
            return nil
        }
        return Double(last.frames - first.frames) / (last.time - first.time)
    }

    /// Seconds until `total` frames at `rate`, falling back to `overall` (frames per second of
    /// the whole run) while the window is short; nil when neither is known or nothing moves.
    public func secondsLeft(total: Int64, overall: Double?) -> Double? {
        guard let last = samples.last, let speed = rate ?? overall, speed > 0 else { return nil }
        return Double(max(total - last.frames, 0)) / speed
    }
}
