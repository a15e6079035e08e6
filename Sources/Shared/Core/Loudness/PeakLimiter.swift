/// A look-ahead true-peak limiter whose gain at a sample depends only on the sound within a
/// fixed distance of it, so a block rendered with that much sound on either side comes out
/// the same wherever the block's seams fall and whoever renders it.
///
/// Each sample's required gain (what keeps its true peak under the ceiling) is quantized down
/// to 30 fractional bits. The gain applied is the mean, over `2·attack + 1` samples centred
/// on the sample, of the least required gain within `attack` samples ahead and `attack + hold`
/// behind. Every sample's applied gain is then at most its own requirement (each value
/// averaged is a minimum over a window that contains the sample), the gain falls over
/// `2·attack` samples before a peak, holds `hold` after it, and rises over `2·attack`; and the
/// sums are exact integers, never rounded differently on another machine.
public struct PeakLimiter: Sendable {
    public static let unity: Int64 = 1 << 30
    public let attack: Int
    public let hold: Int

    /// 2 ms ramps and a 50 ms hold at `sampleRate`.
    public init(sampleRate: Int) {
        attack = max(1, sampleRate / 1000)
        hold = sampleRate / 20
    }

    /// Samples before a sample whose requirement its gain reads.
    public var lookBehind: Int { 2 * attack + hold }
    /// Samples after it.
    public var lookAhead: Int { 2 * attack }

    /// A requirement from a peak (after the programme's gain) and the ceiling, both linear.
    public static func requirement(peak: Double, ceiling: Double) -> Int64 {
        guard peak > ceiling else { return unity }
        return Int64((ceiling / peak * Double(unity)).rounded(.down))
    }

    /// The gains of `count` samples from the requirements of the samples from `lookBehind`
    /// before the first to `lookAhead` after the last (`required.count == lookBehind + count +
    /// lookAhead`).
    public func gains(required: [Int64], count: Int) -> [Double] {
        precondition(required.count == lookBehind + count + lookAhead, "requirements must cover the reach")
        if required.allSatisfy({ $0 == Self.unity }) { return [Double](repeating: 1, count: count) }
        // least[i] for i in -attack ..< count + attack: the minimum of required over the
        // positions i - attack - hold ... i + attack, kept with a deque of candidates.
        let window = 2 * attack + hold + 1
        let leastCount = count + 2 * attack
        var least = [Int64](repeating: 0, count: leastCount)
        var deque = [Int](repeating: 0, count: required.count)
        var front = 0
        var back = 0
        for j in 0..<required.count {
            while back > front, required[deque[back - 1]] >= required[j] { back -= 1 }
            deque[back] = j
            back += 1
            // The window ending at j serves least index j - window + 1 (in required's terms).
            let first = j - window + 1
            if first >= 0 {
                while deque[front] < first { front += 1 }
                if first < leastCount { least[first] = required[deque[front]] }
            }
        }
        let width = 2 * attack + 1
        var sum: Int64 = 0
        for i in 0..<width { sum += least[i] }
        var gains = [Double](repeating: 1, count: count)
        let scale = 1 / (Double(width) * Double(Self.unity))
        for n in 0..<count {
            if n > 0 { sum += least[n + width - 1] - least[n - 1] }
            gains[n] = Double(sum) * scale
        }
        return gains
    }
}
