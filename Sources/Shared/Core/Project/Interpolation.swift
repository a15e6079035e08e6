/// How a keyframed value moves from one key to the next: the curve of the segment that starts
/// at the key carrying it.
///
/// The easing curves are CSS's cubic Béziers (`ease-in` is `cubic-bezier(0.42, 0, 1, 1)`,
/// `ease-out` `(0, 0, 0.58, 1)`, `ease-in-out` `(0.42, 0, 0.58, 1)`), and `bezier` takes any
/// two control points with x in 0...1, as CSS and After Effects do. A curve is evaluated from the
/// segment's exact fraction by a fixed number of steps in double precision, so a frame's value
/// depends on its time alone, never on which frames a chunk rendered before it.
public enum Interpolation: Sendable, Codable, Hashable {
    case linear
    /// Keeps the key's value until the next key, then jumps.
    case hold
    case easeIn
    case easeOut
    case easeInOut
    case bezier(x1: Double, y1: Double, x2: Double, y2: Double)

    /// The names the project format uses, in the order its docs list them.
    public static let names: [(name: String, value: Interpolation)] = [
        ("linear", .linear), ("hold", .hold), ("ease-in", .easeIn), ("ease-out", .easeOut),
        ("ease-in-out", .easeInOut),
    ]

    /// The eased fraction for a segment's `fraction` (0 at its first key, 1 at the next).
    public func ease(_ fraction: Double) -> Double {
        switch self {
        case .linear: return fraction
        case .hold: return fraction >= 1 ? 1 : 0
        case .easeIn: return Self.cubicBezier(0.42, 0, 1, 1, at: fraction)
        case .easeOut: return Self.cubicBezier(0, 0, 0.58, 1, at: fraction)
        case .easeInOut: return Self.cubicBezier(0.42, 0, 0.58, 1, at: fraction)
        case .bezier(let x1, let y1, let x2, let y2): return Self.cubicBezier(x1, y1, x2, y2, at: fraction)
        }
    }

    /// The curve through (0, 0), (x1, y1), (x2, y2), (1, 1) at x = `x`: the curve parameter is
    /// found by bisection (x rises with it when both control x lie in 0...1), always 52 halvings,
    /// down to double precision, then y is evaluated there.
    static func cubicBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, at x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        func coordinate(_ p1: Double, _ p2: Double, _ s: Double) -> Double {
            let r = 1 - s
            return 3 * r * r * s * p1 + 3 * r * s * s * p2 + s * s * s
        }
        var low = 0.0
        var high = 1.0
        for _ in 0..<52 {
            let middle = (low + high) / 2
            if coordinate(x1, x2, middle) < x { low = middle } else { high = middle }
        }
        return coordinate(y1, y2, (low + high) / 2)
    }
}
