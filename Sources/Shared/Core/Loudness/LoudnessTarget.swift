import Foundation

/// The loudness a delivery asks for (`export.audio.loudness`): an integrated loudness, a true
/// peak ceiling, the tolerance the QC report holds the output to, and whether missing it fails
/// the job.
public struct LoudnessTarget: Sendable, Codable, Hashable {
    /// LUFS (LKFS).
    public var integrated: Double
    /// dBTP: no oversampled peak above it.
    public var truePeak: Double
    /// LU either side of `integrated` the output may measure.
    public var tolerance: Double
    /// The job fails, its output kept aside, when the output misses the target.
    public var failIfMissed: Bool
    /// The named target it came from, if any.
    public var standard: Standard?

    public enum Standard: String, Sendable, Codable, Hashable, CaseIterable {
        /// EBU R128: −23 LUFS ± 0.5 LU, −1 dBTP.
        case ebuR128 = "ebu-r128"
        /// ATSC A/85: −24 LKFS ± 2 LU, −2 dBTP.
        case atscA85 = "atsc-a85"
        /// Music and video streaming services: −14 LUFS ± 1 LU, −1 dBTP.
        case streaming = "streaming"

        public var target: LoudnessTarget {
            switch self {
            case .ebuR128: LoudnessTarget(integrated: -23, truePeak: -1, tolerance: 0.5, standard: self)
            case .atscA85: LoudnessTarget(integrated: -24, truePeak: -2, tolerance: 2, standard: self)
            case .streaming: LoudnessTarget(integrated: -14, truePeak: -1, tolerance: 1, standard: self)
            }
        }
    }

    public init(
        integrated: Double, truePeak: Double, tolerance: Double = 0.5, failIfMissed: Bool = false,
        standard: Standard? = nil
    ) {
        self.integrated = integrated
        self.truePeak = truePeak
        self.tolerance = tolerance
        self.failIfMissed = failIfMissed
        self.standard = standard
    }

    /// The gain and ceiling every audio block of a programme measured as `measured` applies.
    /// Lossy encoders overshoot the peaks they are given (AAC by up to about 1 dB on sharp
    /// transients), so for them the limiter's ceiling sits `lossyMargin` lower; PCM keeps a
    /// margin for the limiter's own interpolation only.
    public func gain(for measured: ProgrammeLoudness, lossy: Bool) -> ProgrammeGain {
        // Silence, or too short to gate: left as it is.
        let decibels = measured.integrated.map { integrated - $0 } ?? 0
        let margin = lossy ? Self.lossyMargin : Self.pcmMargin
        return ProgrammeGain(gain: pow(10, decibels / 20), ceiling: pow(10, (truePeak - margin) / 20))
    }

    /// What follows a measurement pass over every block: the gain to encode with, or another
    /// pass measuring the sound with a trial gain through the limiter.
    public enum Step: Sendable, Hashable {
        case settle(ProgrammeGain)
        case measureAgain(trial: ProgrammeGain)
    }

    /// The first pass measures the plain mix. Its gain is final when the limiter provably
    /// never acts (no sample's oversampled peak can reach the ceiling after the gain).
    /// Otherwise the limiter takes some loudness back, so the sound is measured through it at
    /// a trial gain, and the gain is corrected by what the trial missed the target by (along
    /// the slope between the last two trials: the limiter flattens it): at most
    /// `limitedPasses` times, until a trial lands within 0.05 LU. The gain encoded is always
    /// one whose result a pass measured.
    public func step(
        measured: ProgrammeLoudness, samplePeak: Double, trial: ProgrammeGain?, lossy: Bool
    ) -> Step {
        guard let trial else {
            let first = gain(for: measured, lossy: lossy)
            if first.gain * samplePeak * TruePeakMeter.bound <= first.ceiling { return .settle(first) }
            return .measureAgain(trial: ProgrammeGain(gain: first.gain, ceiling: first.ceiling, pass: 1))
        }
        let settled = ProgrammeGain(gain: trial.gain, ceiling: trial.ceiling)
        guard let level = measured.integrated else { return .settle(settled) }
        let missed = integrated - level
        if abs(missed) <= 0.05 || trial.pass >= Self.limitedPasses { return .settle(settled) }
        let decibels = 20 * log10(trial.gain)
        var slope = 1.0
        if let previous = trial.previous, previous.count == 2, decibels != previous[0] {
            slope = min(1, max(0.05, (level - previous[1]) / (decibels - previous[0])))
        }
        let next = decibels + max(-12, min(12, missed / slope))
        return .measureAgain(
            trial: ProgrammeGain(
                gain: pow(10, next / 20), ceiling: trial.ceiling, pass: trial.pass + 1, previous: [decibels, level]))
    }

    /// Passes through the limiter after the first, at most.
    public static let limitedPasses = 4

    public static let lossyMargin = 1.0
    public static let pcmMargin = 0.2

    /// Whether an output measuring `integrated` and `truePeak` meets this target; the reasons
    /// it does not, with the figures.
    public func misses(integrated measured: Double?, truePeak peak: Double) -> [String] {
        var misses: [String] = []
        let name = standard.map { " (\($0.rawValue))" } ?? ""
        if let measured {
            if abs(measured - integrated) > tolerance + 1e-9 {
                misses.append(
                    "integrated loudness \(Self.figure(measured)) LUFS misses the target \(Self.figure(integrated)) "
                        + "± \(Self.figure(tolerance)) LU\(name)")
            }
        } else {
            misses.append("integrated loudness could not be measured (silent or under 400 ms)")
        }
        if peak > truePeak + 1e-9 {
            misses.append(
                "true peak \(Self.figure(peak)) dBTP is above the ceiling \(Self.figure(truePeak)) dBTP\(name)")
        }
        return misses
    }

    /// One decimal, as loudness meters show it.
    public static func figure(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : (value < 0 ? "-inf" : "inf")
    }
}

/// What an audio block applies to the programme's mix: one gain for the whole programme, then
/// the true-peak limiter's ceiling (`PeakLimiter`), both linear.
public struct ProgrammeGain: Sendable, Codable, Hashable {
    public var gain: Double
    public var ceiling: Double
    /// For a trial: which pass through the limiter it is (1 first), and the trial before it as
    /// [gain in dB, the integrated loudness it measured].
    public var pass: Int = 0
    public var previous: [Double]?

    public init(gain: Double, ceiling: Double, pass: Int = 0, previous: [Double]? = nil) {
        self.gain = gain
        self.ceiling = ceiling
        self.pass = pass
        self.previous = previous
    }
}
