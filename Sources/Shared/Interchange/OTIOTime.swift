import FarmCore

/// OpenTimelineIO's times (`RationalTime.1`: a `value` counted at a `rate`, both JSON numbers,
/// doubles in OTIO) read as seconds.
///
/// OTIO writes rates as floats, so 23.976 fps arrives as `23.976`, `23.98` or
/// `23.976023976023978`; each means 24000/1001, and is read so. Values are read from their
/// literal text, so 86400 frames at 24000/1001 are exactly 3603.6 s; a value a float left
/// residue in (`41.95804195804195` frames) is read to the nearest flick (`TimeGrid`), as the
/// project format reads such a time, so the import holds only times its parser takes as written.
enum OTIOTime {
    /// The NTSC rates (N × 1000/1001) an editor means by a float near them.
    private static let ntscBases: [Int64] = [15, 24, 30, 48, 60, 72, 96, 120]

    /// `rate` as the rate it stands for: an NTSC rate within 0.01 of it, an integer within
    /// 0.0001, else the decimal (to six places when it has more: a rate, unlike a time, must
    /// be exact in the project).
    static func rate(_ literal: Rational) -> Rational {
        for base in ntscBases {
            let ntsc = Rational(base * 1000, 1001)
            let gap = literal - ntsc
            if Rational.max(gap, Rational.zero - gap) < Rational(1, 100) { return ntsc }
        }
        let whole = Rational(literal.rounded)
        let gap = literal - whole
        if Rational.max(gap, Rational.zero - gap) < Rational(1, 10000) { return whole }
        guard literal.denominator > TimeGrid.finestExact else { return literal }
        return Rational(Int64((literal.seconds * 1_000_000).rounded()), 1_000_000)
    }

    /// A JSON number's literal text as an exact rational: "86400.0", "-12", "1e-05", "2.5E3";
    /// a literal too long for that ("0.049999999999999996": OTIO writes doubles with all their
    /// digits) as the simplest rational within that double's precision, as OTIO's reader takes
    /// it as a double; nil when it is not a finite number.
    static func number(_ value: JSONValue) -> Rational? {
        guard case .number(let text) = value else { return nil }
        if let exact = literal(text) { return exact }
        guard let double = Double(text), double.isFinite else { return nil }
        return simplest(near: double)
    }

    /// The fraction with the smallest denominator (at most 10^9) within 1e-12 of `value`,
    /// relative, by continued fractions; nil when `value` is too large for one.
    static func simplest(near value: Double) -> Rational? {
        guard abs(value) < 1e9 else { return nil }
        var previous = (numerator: Int64(0), denominator: Int64(1))
        var current = (numerator: Int64(1), denominator: Int64(0))
        var rest = abs(value)
        for _ in 0..<40 {
            let whole = rest.rounded(.down)
            // A term this large makes a denominator past the bound (and past 64 bits).
            guard whole < 2e9 else { break }
            let term = Int64(whole)
            // The denominator first, checked: the numerator is then at most about value × 10^9.
            let (scaled, overflow) = term.multipliedReportingOverflow(by: current.denominator)
            guard !overflow, scaled + previous.denominator <= 1_000_000_000 else { break }
            let next = (
                numerator: term * current.numerator + previous.numerator,
                denominator: scaled + previous.denominator
            )
            (previous, current) = (current, next)
            let gap = abs(Double(current.numerator) / Double(current.denominator) - abs(value))
            if gap <= 1e-12 * max(abs(value), 1e-9) || rest == whole { break }
            rest = 1 / (rest - whole)
        }
        guard current.denominator > 0 else { return nil }
        return Rational(value < 0 ? -current.numerator : current.numerator, current.denominator)
    }

    /// A literal exactly: "86400.0", "-12", "1e-05", "2.5E3"; nil past 64 bits.
    private static func literal(_ text: String) -> Rational? {
        let lower = text.lowercased()
        guard let e = lower.firstIndex(of: "e") else { return Rational(parsing: text) }
        guard let mantissa = Rational(parsing: String(lower[..<e])),
            let exponent = Int(lower[lower.index(after: e)...]), abs(exponent) <= 18
        else { return nil }
        var scale: Int64 = 1
        for _ in 0..<abs(exponent) { scale *= 10 }
        return mantissa.multipliedExactly(by: exponent < 0 ? Rational(1, scale) : Rational(scale))
    }

    /// `value` frames at `rate` in seconds: exact where the project holds it exactly, else the
    /// nearest flick; nil when `value` is not a finite number.
    static func seconds(_ value: JSONValue, rate: Rational) -> Rational? {
        guard case .number(let text) = value, let frames = Double(text), frames.isFinite else { return nil }
        if let exact = literal(text)?.multipliedExactly(by: Rational(rate.denominator, rate.numerator)) {
            return TimeGrid.held(exact)
        }
        return TimeGrid.nearest(seconds: frames / rate.seconds)
    }
}

/// A `RationalTime.1` read: its seconds, and the rate it was counted at.
struct OTIOInstant {
    var seconds: Rational
    var rate: Rational
}

/// A `TimeRange.1` read, in seconds.
struct OTIORange {
    var start: Rational
    var duration: Rational
    var rate: Rational
    var end: Rational { start + duration }
}

extension OTIOReader {
    /// `RationalTime.1` at `key`; nil, with a problem naming the object, when malformed.
    func instant(_ value: JSONValue, path: String) -> OTIOInstant? {
        guard let object = OTIOObject(value, path: path, reader: self) else { return nil }
        guard object.schema.name == "RationalTime" else {
            problem(path, "expected a RationalTime, got \(object.schema.text)")
            return nil
        }
        guard let rateValue = object.raw("rate"), let rawRate = OTIOTime.number(rateValue),
            rawRate > Rational.zero
        else {
            problem(path, "RationalTime needs a rate above 0, got \(object.raw("rate").map(Self.show) ?? "none")")
            return nil
        }
        let rate = OTIOTime.rate(rawRate)
        guard let valueValue = object.raw("value"), let seconds = OTIOTime.seconds(valueValue, rate: rate) else {
            problem(path, "RationalTime needs a numeric value, got \(object.raw("value").map(Self.show) ?? "none")")
            return nil
        }
        return OTIOInstant(seconds: seconds, rate: rate)
    }

    /// `TimeRange.1` at `path`, whose duration must not be negative.
    func range(_ value: JSONValue, path: String) -> OTIORange? {
        guard let object = OTIOObject(value, path: path, reader: self) else { return nil }
        guard object.schema.name == "TimeRange" else {
            problem(path, "expected a TimeRange, got \(object.schema.text)")
            return nil
        }
        guard let startValue = object.raw("start_time"), let durationValue = object.raw("duration") else {
            problem(path, "TimeRange needs start_time and duration")
            return nil
        }
        guard let start = instant(startValue, path: path + ".start_time"),
            let duration = instant(durationValue, path: path + ".duration")
        else { return nil }
        guard !duration.seconds.isNegative else {
            problem(path + ".duration", "negative duration (\(Self.seconds(duration.seconds)))")
            return nil
        }
        return OTIORange(start: start.seconds, duration: duration.seconds, rate: duration.rate)
    }
}

extension Rational {
    /// Exact text the project format reads back to the same value: "12.5" when the value is a
    /// finite decimal, else "1001/24000".
    var exactText: String {
        var d = denominator
        var places = 0
        while d % 10 == 0 {
            d /= 10
            places += 1
        }
        var scale: Int64 = 1
        while d % 2 == 0 || d % 5 == 0 {
            guard places < 12 else { return description }
            if d % 2 == 0 {
                d /= 2
                scale *= 5
            } else {
                d /= 5
                scale *= 2
            }
            places += 1
        }
        guard d == 1, places > 0 else { return description }
        let (n, overflow) = numerator.multipliedReportingOverflow(by: scale)
        guard !overflow else { return description }
        var power: Int64 = 1
        for _ in 0..<places { power *= 10 }
        let digits = String(abs(n) % power)
        let fraction = String(repeating: "0", count: places - digits.count) + digits
        return (n < 0 ? "-" : "") + "\(abs(n) / power)." + fraction
    }

    /// Seconds to the millisecond, for messages.
    var decimal: String { String(format: "%.3f", seconds) }
}
