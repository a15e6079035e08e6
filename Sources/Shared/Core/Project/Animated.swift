/// A property that is either constant or keyframed over the item's local time.
public enum Animated<Value: Interpolatable>: Sendable, Codable, Hashable {
    case constant(Value)
    /// Keys sorted by time; times are relative to the item's start.
    case keys([Keyframe<Value>])

    /// The value at item-local time `t`: held before the first key and after the last, and
    /// between two keys moved along the first key's `interpolation`.
    public func value(at t: Rational) -> Value {
        switch self {
        case .constant(let value):
            return value
        case .keys(let keys):
            guard let first = keys.first, let last = keys.last else { preconditionFailure("empty keyframes") }
            if t <= first.time { return first.value }
            if t >= last.time { return last.value }
            var lower = first
            for key in keys.dropFirst() {
                if t < key.time {
                    // The fraction is exact; only the final blend is floating point, the same for
                    // every chunk because it depends on `t` alone.
                    let fraction = ((t - lower.time) / (key.time - lower.time)).seconds
                    return Value.interpolate(
                        from: lower.value, to: key.value, fraction: lower.interpolation.ease(fraction))
                }
                lower = key
            }
            return last.value
        }
    }
}

public struct Keyframe<Value: Interpolatable>: Sendable, Codable, Hashable {
    public var time: Rational
    public var value: Value
    /// The curve from this key to the next.
    public var interpolation: Interpolation

    public init(time: Rational, value: Value, interpolation: Interpolation = .linear) {
        self.time = time
        self.value = value
        self.interpolation = interpolation
    }
}

/// Values that keyframes can blend.
public protocol Interpolatable: Sendable, Codable, Hashable {
    static func interpolate(from a: Self, to b: Self, fraction: Double) -> Self
}

extension Double: Interpolatable {
    public static func interpolate(from a: Double, to b: Double, fraction: Double) -> Double {
        a + (b - a) * fraction
    }
}

extension Rect: Interpolatable {
    public static func interpolate(from a: Rect, to b: Rect, fraction: Double) -> Rect {
        Rect(
            x: .interpolate(from: a.x, to: b.x, fraction: fraction),
            y: .interpolate(from: a.y, to: b.y, fraction: fraction),
            width: .interpolate(from: a.width, to: b.width, fraction: fraction),
            height: .interpolate(from: a.height, to: b.height, fraction: fraction)
        )
    }
}
