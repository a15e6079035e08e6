import Foundation

/// An exact rational number, always stored reduced with a positive denominator.
///
/// Every time in the project model is a `Rational` so that planning, seeking and timestamps never
/// accumulate floating-point error (a 29.97 fps timeline is exactly 30000/1001).
public struct Rational: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational with zero denominator")
        // Int64.min has no positive counterpart; one unit less keeps every sign change safe.
        let numerator = Swift.max(numerator, Int64.min + 1)
        let denominator = Swift.max(denominator, Int64.min + 1)
        let sign: Int64 = denominator < 0 ? -1 : 1
        let divisor = Rational.gcd(Swift.abs(numerator), Swift.abs(denominator))
        let d = divisor == 0 ? 1 : divisor
        self.numerator = sign * numerator / d
        self.denominator = sign * denominator / d
    }

    public init(_ value: Int) { self.init(Int64(value), 1) }

    public static let zero = Rational(0)
    public static let one = Rational(1)

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// Parses "24", "-3", "1.5", "0.040", "30000/1001" exactly (no floating point on the way).
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let slash = trimmed.firstIndex(of: "/") {
            // One slash between two decimals: "1/2/3" is not a time (and must not recurse).
            let (top, bottom) = (String(trimmed[..<slash]), String(trimmed[trimmed.index(after: slash)...]))
            guard !top.contains("/"), !bottom.contains("/"), let n = Rational(parsing: top),
                let d = Rational(parsing: bottom), d.numerator != 0
            else { return nil }
            self = n / d
            return
        }
        var body = Substring(trimmed)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !body.isEmpty, parts.count <= 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            !(parts[0].isEmpty && (parts.count == 1 || parts[1].isEmpty))
        else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard parts[0].count + fraction.count <= 18, let digits = Int64(String(parts[0]) + fraction) else {
            return nil
        }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        self.init(negative ? -digits : digits, scale)
    }

    public var description: String {
        denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }

    /// A short decimal for messages ("60.0 s"); never used for arithmetic.
    public var seconds: Double { Double(numerator) / Double(denominator) }

    public var isNegative: Bool { numerator < 0 }

    public static func + (a: Rational, b: Rational) -> Rational {
        let g = gcd(a.denominator, b.denominator)
        let (x, o1) = a.numerator.multipliedReportingOverflow(by: b.denominator / g)
        let (y, o2) = b.numerator.multipliedReportingOverflow(by: a.denominator / g)
        let (n, o3) = x.addingReportingOverflow(y)
        let (d, o4) = (a.denominator / g).multipliedReportingOverflow(by: b.denominator)
        if o1 || o2 || o3 || o4 { return approximating(a.seconds + b.seconds) }
        return Rational(n, d)
    }

    /// Where exact arithmetic would overflow 64 bits: the value to 1/2^20, saturated. Validation
    /// bounds every time a project holds, so only absurd input gets here, and it gets a number
    /// instead of a trap.
    static func approximating(_ value: Double) -> Rational {
        let limit = Double(Int64.max >> 21)
        let clamped = Swift.max(-limit, Swift.min(limit, value.isFinite ? value : 0))
        return Rational(Int64((clamped * 1_048_576).rounded()), 1_048_576)
    }

    public static func - (a: Rational, b: Rational) -> Rational { a + Rational(-b.numerator, b.denominator) }

    public static func * (a: Rational, b: Rational) -> Rational {
        a.multipliedExactly(by: b) ?? approximating(a.seconds * b.seconds)
    }

    /// The exact product; nil where it would leave 64 bits (where `*` approximates).
    public func multipliedExactly(by b: Rational) -> Rational? {
        let a = self
        let g1 = Rational.gcd(Swift.abs(a.numerator), b.denominator)
        let g2 = Rational.gcd(Swift.abs(b.numerator), a.denominator)
        let n1 = g1 == 0 ? a.numerator : a.numerator / g1
        let d2 = g1 == 0 ? b.denominator : b.denominator / g1
        let n2 = g2 == 0 ? b.numerator : b.numerator / g2
        let d1 = g2 == 0 ? a.denominator : a.denominator / g2
        let (n, o1) = n1.multipliedReportingOverflow(by: n2)
        let (d, o2) = d1.multipliedReportingOverflow(by: d2)
        if o1 || o2 { return nil }
        return Rational(n, d)
    }

    public static func / (a: Rational, b: Rational) -> Rational {
        precondition(b.numerator != 0, "Rational division by zero")
        return a * Rational(b.denominator, b.numerator)
    }

    public static func < (a: Rational, b: Rational) -> Bool {
        // Compare in 128-bit space so large timestamps cannot overflow.
        let lhs = a.numerator.multipliedFullWidth(by: b.denominator)
        let rhs = b.numerator.multipliedFullWidth(by: a.denominator)
        return (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    /// The largest integer not greater than the value.
    public var floor: Int64 {
        let q = numerator / denominator
        return (numerator % denominator != 0 && numerator < 0) ? q - 1 : q
    }

    /// The smallest integer not less than the value.
    public var ceil: Int64 { -Rational(-numerator, denominator).floor }

    /// Round half up, the rule used wherever a time becomes a sample index.
    public var rounded: Int64 { (self + Rational(1, 2)).floor }

    public static func min(_ a: Rational, _ b: Rational) -> Rational { a < b ? a : b }
    public static func max(_ a: Rational, _ b: Rational) -> Rational { a < b ? b : a }
}

extension Rational: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Rational(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a rational: \(text)")
        }
        self = value
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
