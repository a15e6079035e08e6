import Foundation

/// The grid a time is rounded to when exact arithmetic cannot hold it: the flick, 1/705,600,000 s.
///
/// Every frame of 24, 25, 30, 48, 50, 60, 90, 100 and 120 fps and of their NTSC rates (24000/1001,
/// 30000/1001, ...), and every sample from 8 to 192 kHz, lies on it: a time a program printed
/// from a float ("0.6000000000000001", 52 frames at 23.976 fps as "2.1688333333333327") comes back
/// to the exact frame or sample it meant. Grid times add up without leaving 64 bits.
public enum TimeGrid {
    public static let ticksPerSecond: Int64 = 705_600_000

    /// Times whose reduced denominator is at most this are held exactly, on the grid or not.
    public static let finestExact: Int64 = 1_000_000_000

    /// Whole seconds past which a time is not rounded (far beyond any time a project holds).
    static let largest: UInt64 = 1_000_000_000

    /// What a time's text reads as on the grid.
    public enum Reading: Equatable, Sendable {
        case nearest(Rational)
        /// A well-formed time beyond ±1,000,000,000 s.
        case tooLarge
    }

    /// The grid time nearest `numerator / denominator` (halves away from zero), nil beyond
    /// ±1,000,000,000 s.
    public static func nearest(_ numerator: Int64, _ denominator: Int64) -> Rational? {
        precondition(denominator > 0, "a positive denominator")
        let (magnitude, divisor) = (numerator.magnitude, UInt64(denominator))
        let whole = magnitude / divisor
        guard whole < largest else { return nil }
        // The remainder's share of a second in ticks, exactly: 128 bits hold remainder × ticks.
        let remainder = magnitude % divisor
        let wide = remainder.multipliedFullWidth(by: UInt64(ticksPerSecond))
        var (ticks, left) = divisor.dividingFullWidth((wide.high, wide.low))
        if left >= divisor - left { ticks += 1 }
        let total = Int64(whole) * ticksPerSecond + Int64(ticks)
        return Rational(numerator < 0 ? -total : total, ticksPerSecond)
    }

    /// `value` itself when its denominator is at most `finestExact`, else the nearest grid time.
    public static func held(_ value: Rational) -> Rational {
        guard value.denominator > finestExact else { return value }
        return nearest(value.numerator, value.denominator) ?? value
    }

    /// The grid time nearest `seconds`; nil when not finite or beyond ±1,000,000,000 s.
    public static func nearest(seconds: Double) -> Rational? {
        guard seconds.isFinite, seconds.magnitude < Double(largest) else { return nil }
        return Rational(Int64((seconds * Double(ticksPerSecond)).rounded()), ticksPerSecond)
    }

    /// The grid time a decimal ("0.00030000000000000003", any number of digits) or a ratio
    /// ("17350666666666661/8000000000000000") is nearest; nil when `text` is neither.
    public static func nearest(parsing text: String) -> Reading? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.contains("/") {
            guard let exact = Rational(parsing: trimmed) else { return nil }
            return nearest(exact.numerator, exact.denominator).map { .nearest($0) } ?? .tooLarge
        }
        return nearest(decimal: Array(trimmed.utf8))
    }

    /// `[+-]digits[.digits]`, read digit by digit: a fraction of any length costs one pass.
    private static func nearest(decimal bytes: [UInt8]) -> Reading? {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        let point = digits.firstIndex(of: UInt8(ascii: "."))
        let whole = digits[..<(point ?? digits.endIndex)]
        let fraction = point.map { digits[($0 + 1)...] } ?? []
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard !(whole.isEmpty && fraction.isEmpty), whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else {
            return nil
        }
        let significant = whole.drop { $0 == UInt8(ascii: "0") }
        guard significant.count <= 9 else { return .tooLarge }
        let seconds = significant.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        // fraction × ticks by long multiplication from the last digit: what carries out of the
        // first digit is the whole ticks, and the first digit below them decides the rounding.
        var carry: Int64 = 0
        var firstBelow: Int64 = 0
        for byte in fraction.reversed() {
            let product = Int64(byte - UInt8(ascii: "0")) * ticksPerSecond + carry
            firstBelow = product % 10
            carry = product / 10
        }
        let ticks = seconds * ticksPerSecond + carry + (firstBelow >= 5 ? 1 : 0)
        return .nearest(Rational(negative ? -ticks : ticks, ticksPerSecond))
    }
}
