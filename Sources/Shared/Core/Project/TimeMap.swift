/// Media time as a function of item time, straight between keys: speed ramps (keys closer or
/// further apart in media time), freeze frames (two keys at one media time) and reverse play
/// (media time falling). Exact: every time is rational.
public struct TimeMap: Sendable, Codable, Hashable {
    public struct Key: Sendable, Codable, Hashable {
        /// Item-local time.
        public var time: Rational
        /// Media time shown then.
        public var source: Rational

        public init(time: Rational, source: Rational) {
            self.time = time
            self.source = source
        }
    }

    /// Sorted by `time`, which strictly increases; at least one.
    public var keys: [Key]

    public init(keys: [Key]) {
        precondition(!keys.isEmpty, "a time map needs a key")
        self.keys = keys
    }

    /// The media time at item-local time `t`: held before the first key and after the last.
    public func source(at t: Rational) -> Rational {
        guard let first = keys.first, let last = keys.last else { return .zero }
        if t <= first.time { return first.source }
        if t >= last.time { return last.source }
        var lower = first
        for key in keys.dropFirst() {
            if t < key.time {
                return lower.source + (t - lower.time) * (key.source - lower.source) / (key.time - lower.time)
            }
            lower = key
        }
        return last.source
    }

    /// One straight piece: item-local times `start..<end` play media from `from` to `to`.
    public struct Segment: Sendable, Hashable {
        public var start: Rational
        public var end: Rational
        public var from: Rational
        public var to: Rational
    }

    /// The pieces covering item-local times `0..<duration`, holds before the first key and
    /// after the last included.
    public func segments(duration: Rational) -> [Segment] {
        var points = [Key(time: .zero, source: source(at: .zero))]
        points += keys.filter { .zero < $0.time && $0.time < duration }
        points.append(Key(time: duration, source: source(at: duration)))
        return zip(points, points.dropFirst()).map {
            Segment(start: $0.time, end: $1.time, from: $0.source, to: $1.source)
        }
    }

    /// The latest media time the map shows within `0..<duration`.
    public func latestSource(duration: Rational) -> Rational {
        segments(duration: duration).map { Rational.max($0.from, $0.to) }.max() ?? .zero
    }
}
