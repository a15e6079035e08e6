/// Where a resampler may start reading so that its output lines up, to the sample and the
/// filter phase, with a resampler that started at the stream's first sample.
///
/// Converting `inputRate` to `outputRate`, input sample `period × k` (period: the input rate
/// over the two rates' common divisor) falls exactly on an output sample; between those the
/// output samples fall between input samples, at phases that repeat every period. A resampler
/// started after a seek at any other input sample would put its first output on a whole sample
/// anyway, a fraction of a sample off the decode from the start (0.04 to 0.34 of a sample at
/// 44.1 kHz into 48 kHz, differences of hundreds of levels). Started at a multiple of the
/// period, its output is the same samples.
public struct ResamplerPhase: Sendable, Equatable {
    /// Input samples per cycle of phases.
    public let period: Int64

    public init(inputRate: Int64, outputRate: Int64) {
        let common = Rational.gcd(max(1, inputRate), max(1, outputRate))
        period = max(1, inputRate) / common
    }

    /// Input samples to skip from input sample `position` (counted from the stream's first) to
    /// the next start of a cycle.
    public func inputToSkip(from position: Int64) -> Int64 {
        let into = position % period
        return into == 0 ? 0 : into > 0 ? period - into : -into
    }
}
