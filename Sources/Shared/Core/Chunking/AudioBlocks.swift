/// The timeline's sound cut into blocks that any worker can mix and encode, like video chunks.
///
/// Boundaries depend on the render range alone (for a farm job, the whole timeline: the project
/// alone), never on the video chunking or the number of workers: so the encoded sound is the
/// same however a job is spread. Every boundary is a whole number of AAC frames from the range's
/// start, so each block's packets line up with its neighbours' at the seam.
public enum AudioBlocks {
    /// Samples per AAC frame.
    public static let frameSamples: Int64 = 1024
    /// Samples encoded before a block and dropped: four AAC frames settle the encoder.
    public static let preRoll: Int64 = 4 * frameSamples
    /// Samples encoded after a block and dropped: its last packet's transform reaches one frame on.
    public static let tail: Int64 = 2 * frameSamples

    /// The timeline seconds a block's mix reads, pre-roll and tail included: the items that
    /// sound then are the ones it needs.
    public static func timeSpan(of block: AudioBlock, sampleRate: Int) -> Range<Rational> {
        let rate = Rational(Int64(sampleRate))
        return Rational(max(0, block.start - preRoll)) / rate..<Rational(block.end + tail) / rate
    }

    /// About ten seconds: long enough that the pre-roll each block encodes again costs ~2 %,
    /// short enough that a long timeline's sound spreads over every worker.
    public static func length(sampleRate: Int) -> Int64 {
        max(1, (Int64(sampleRate) * 10 + frameSamples / 2) / frameSamples) * frameSamples
    }

    /// The blocks covering timeline samples `samples`: boundaries every `length` samples from the
    /// range's start, the last block cut at its end.
    public static func plan(samples: Range<Int64>, sampleRate: Int) -> [AudioBlock] {
        let length = length(sampleRate: sampleRate)
        return stride(from: samples.lowerBound, to: samples.upperBound, by: Int(length)).enumerated().map {
            AudioBlock(index: $0, start: $1, end: min($1 + length, samples.upperBound))
        }
    }

    /// The number of timeline samples before output frame `n` starts, at `fps` and `sampleRate`.
    public static func sampleIndex(ofFrame n: Int64, fps: Rational, sampleRate: Int) -> Int64 {
        (Rational(n) / fps * Rational(Int64(sampleRate))).rounded
    }
}

extension OutputSettings {
    /// The number of timeline samples before output frame `n` starts.
    public func sampleIndex(ofFrame n: Int64) -> Int64 {
        AudioBlocks.sampleIndex(ofFrame: n, fps: fps, sampleRate: audio.sampleRate)
    }

    /// Timeline samples of output frames `frames`.
    public func samples(ofFrames frames: Range<Int64>) -> Range<Int64> {
        sampleIndex(ofFrame: frames.lowerBound)..<sampleIndex(ofFrame: frames.upperBound)
    }
}
