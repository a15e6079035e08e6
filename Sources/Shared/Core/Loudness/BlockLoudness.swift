/// What one audio block's first pass measured: the K-weighted, channel-weighted energy of each
/// 100 ms step (`LoudnessGrid`) it overlaps, counting only its own samples. A step cut by a
/// block's seam is summed from both blocks; the K-weighting filter's state at the seam comes
/// from the same pre-roll the AAC encode uses (`AudioBlocks.preRoll`), so a block's figures
/// never depend on which machine measured the block before it.
public struct BlockLoudness: Sendable, Codable, Hashable {
    /// The block's index among the render's audio blocks.
    public var block: Int
    /// The grid step of `energies[0]`.
    public var firstStep: Int64
    /// Σ over channels of weight × Σ over the step's samples in the block of (K-weighted sample)².
    public var energies: [Double]
    /// The largest sample magnitude it counted.
    public var samplePeak: Double = 0

    public init(block: Int, firstStep: Int64, energies: [Double], samplePeak: Double = 0) {
        self.samplePeak = samplePeak
        self.block = block
        self.firstStep = firstStep
        self.energies = energies
    }
}
