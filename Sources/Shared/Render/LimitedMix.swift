import FarmCore
import FarmMedia

/// The second pass of a loudness-normalized render over one block's encode span: the
/// programme's mix times its gain, through the true-peak limiter (`PeakLimiter`).
///
/// The limiter reads the sound `lookBehind` before and `lookAhead` after every sample (and the
/// interpolator seven more), so the span is mixed that much wider: the samples a block
/// encodes are the same whether its neighbours were rendered here or on another machine.
/// Outside the render there is silence.
final class LimitedMix {
    private let span: Range<Int64>
    private var output: [[Float]]

    init(loaded: LoadedProject, render: Range<Int64>, span: Range<Int64>, gain: ProgrammeGain) throws {
        let layout = loaded.project.output.audio
        let limiter = PeakLimiter(sampleRate: layout.sampleRate)
        let margin = 7
        let base = span.lowerBound - Int64(limiter.lookBehind + margin)
        let end = span.upperBound + Int64(limiter.lookAhead + margin)
        let count = Int(end - base)
        var sound = [[Float]](repeating: [Float](repeating: 0, count: count), count: layout.channels)
        let mixer = AudioMixer(loaded: loaded)
        var next = max(base, render.lowerBound)
        let last = min(end, render.upperBound)
        while next < last {
            let length = Int(min(4096, last - next))
            let samples = try mixer.mix(from: next, count: length)
            let offset = Int(next - base)
            for channel in 0..<layout.channels {
                for i in 0..<length { sound[channel][offset + i] = samples[channel, i] }
            }
            next += Int64(length)
        }
        // peaks[q]: the largest oversampled magnitude over [base + q, base + q + 1), any channel;
        // computed only where a provable bound on it (`TruePeakMeter.bound`) could pass the
        // ceiling after the gain: most of a programme never comes near it.
        var loudest = [Float](repeating: 0, count: count)
        for channel in 0..<layout.channels {
            for q in 0..<count { loudest[q] = max(loudest[q], abs(sound[channel][q])) }
        }
        let quiet = gain.ceiling / (gain.gain * TruePeakMeter.bound) * 0.999_999
        var peaks = [Double](repeating: 0, count: count)
        var q = 0
        while q < count {
            // A stretch of 4096 samples (and the interpolator's reach) that cannot pass is skipped.
            let stretch = q..<min(count, q + 4096)
            let reach = max(0, stretch.lowerBound - 13)..<min(count, stretch.upperBound + 13)
            if Double(loudest[reach].max() ?? 0) <= quiet {
                q = stretch.upperBound
                continue
            }
            for channel in 0..<layout.channels {
                var meter = TruePeakMeter()
                for p in reach {
                    let peak = meter.push(sound[channel][p])
                    let at = p - TruePeakMeter.delay
                    if at >= stretch.lowerBound, at < stretch.upperBound, p - reach.lowerBound >= 12 {
                        peaks[at] = max(peaks[at], peak)
                    }
                }
            }
            q = stretch.upperBound
        }
        // A sample's gain shapes the sound on both sides of it: held to the larger neighbour peak.
        let first = limiter.lookBehind + margin
        let required = (0..<(limiter.lookBehind + span.count + limiter.lookAhead)).map { r -> Int64 in
            let q = first - limiter.lookBehind + r
            return PeakLimiter.requirement(peak: gain.gain * max(peaks[q], peaks[q - 1]), ceiling: gain.ceiling)
        }
        let gains = limiter.gains(required: required, count: span.count)
        output = (0..<layout.channels).map { channel in
            (0..<span.count).map { n in Float(Double(sound[channel][first + n]) * gain.gain * gains[n]) }
        }
        self.span = span
    }

    /// Copies samples `from ..< from + count` (timeline samples inside the span) into `block`.
    func copy(from: Int64, count: Int, into block: SampleBlock) {
        let offset = Int(from - span.lowerBound)
        for channel in output.indices {
            for i in 0..<count { block[channel, i] = output[channel][offset + i] }
        }
    }
}
