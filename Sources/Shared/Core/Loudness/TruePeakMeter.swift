import Foundation

/// The true peak of one channel per ITU-R BS.1770-4 Annex 2: the sound oversampled four times
/// by a 49-tap Hann-windowed sinc (libebur128's interpolator) and the largest magnitude read.
/// Each input sample gives the four oversampled values around the sample six before it.
public struct TruePeakMeter: Sendable {
    /// `phases[f][t]` weighs the input `t` samples back for the value `f` quarters after.
    static let phases: [[Double]] = {
        let taps = 49
        let factor = 4
        var phases = [[Double]](repeating: [Double](repeating: 0, count: 13), count: factor)
        for j in 0..<taps {
            let m = Double(j) - Double(taps - 1) / 2
            var c = abs(m) > 1e-6 ? sin(m * .pi / Double(factor)) / (m * .pi / Double(factor)) : 1
            c *= 0.5 * (1 - cos(2 * .pi * Double(j) / Double(taps - 1)))
            if abs(c) > 1e-6 { phases[j % factor][j / factor] = c }
        }
        return phases
    }()
    /// How many samples the oversampled values lag the input.
    public static let delay = 6

    /// The taps of all four phases in one row, phase after phase.
    private static let flat: [Double] = phases.flatMap { $0 }
    /// No oversampled value exceeds the largest input magnitude among its 13 times this.
    public static let bound: Double = phases.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 1

    /// The last 13 samples, newest first, written twice so they are always contiguous.
    private var history = [Double](repeating: 0, count: 26)
    private var head = 13
    /// How many inputs in a row `push(_:over:)` found too quiet to matter.
    private var quietRun = 0

    public init() {}

    /// Takes the next sample; returns the largest magnitude among the four oversampled values
    /// spanning [n − 6, n − 5), n being this sample's position.
    public mutating func push(_ x: Float) -> Double {
        head = head == 0 ? 12 : head - 1
        history[head] = Double(x)
        history[head + 13] = Double(x)
        let start = head
        return history.withUnsafeBufferPointer { past in
            Self.flat.withUnsafeBufferPointer { taps in
                var peak = 0.0
                for phase in 0..<4 {
                    var sum = 0.0
                    for t in 0..<13 { sum += taps[phase * 13 + t] * past[start + t] }
                    peak = max(peak, abs(sum))
                }
                return peak
            }
        }
    }

    /// Takes the next sample as `push` does, but computes its oversampled values only where
    /// one could exceed `floor` (the peak the caller already holds): none exceeds `bound` times
    /// the largest of the 13 inputs it weighs, so while the last 13 are all that far below
    /// `floor` it returns 0 and computes nothing. The caller's running maximum comes out the
    /// same to the last bit; programme sound after its first loud passage is mostly skipped.
    public mutating func push(_ x: Float, over floor: Double) -> Double {
        // A hair under the bound, so that rounding in the sum can never make a skipped value
        // the larger.
        if Double(abs(x)) * Self.bound < floor * 0.999_999 {
            quietRun += 1
        } else {
            quietRun = 0
        }
        guard quietRun >= 13 else { return push(x) }
        head = head == 0 ? 12 : head - 1
        history[head] = Double(x)
        history[head + 13] = Double(x)
        return 0
    }

    /// A linear peak in dB (dBTP for a true peak, dBFS for a sample peak); −∞ for silence.
    public static func decibels(_ linear: Double) -> Double {
        linear > 0 ? 20 * log10(linear) : -.infinity
    }
}
