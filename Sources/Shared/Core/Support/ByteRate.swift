/// A transfer rate in bytes per second, written as a number with an optional k, M or G
/// (powers of 1000, as network rates are): `500k`, `2M`, `12500000`.
public struct ByteRate: Sendable, Equatable, CustomStringConvertible {
    public var bytesPerSecond: Double

    public init(bytesPerSecond: Double) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// Nil unless `text` is a positive number with at most one suffix.
    public init?(_ text: String) {
        let multipliers: [Character: Double] = ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9]
        var digits = Substring(text)
        var multiplier = 1.0
        if let last = digits.last, let factor = multipliers[last] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard digits.count <= 20, let value = Double(digits), value.isFinite, value > 0 else { return nil }
        bytesPerSecond = value * multiplier
    }

    public var description: String {
        for (suffix, factor) in [("G", 1e9), ("M", 1e6), ("k", 1e3)] where bytesPerSecond >= factor {
            return "\(Self.trimmed(bytesPerSecond / factor))\(suffix)B/s"
        }
        return "\(Self.trimmed(bytesPerSecond))B/s"
    }

    private static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(format: "%.2f", value)
    }
}
