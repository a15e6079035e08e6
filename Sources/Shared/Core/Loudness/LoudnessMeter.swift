/// Measures a run of sound sample by sample: K-weights every channel and adds each sample's
/// channel-weighted energy to its 100 ms step (`LoudnessGrid`). A block's first pass runs one
/// over its pre-roll and itself, counting only its own samples; the QC pass runs one over a
/// whole output file.
public struct LoudnessMeter: Sendable {
    private var filters: [KWeighting]
    private let weights: [Double]
    private let grid: LoudnessGrid
    /// The next sample's position, from the render's start.
    public private(set) var position: Int64
    /// Samples before this position only settle the filters.
    private let countFrom: Int64
    private var step: Int64
    private var stepEnd: Int64
    /// The step of `energies[0]`.
    public let firstStep: Int64
    public private(set) var energies: [Double] = []
    public private(set) var samplePeak = 0.0

    /// A meter whose first sample is `position` (from the render's start), counting from `countFrom`.
    public init(channels: Int, sampleRate: Int, position: Int64 = 0, countFrom: Int64? = nil) {
        filters = Array(repeating: KWeighting(sampleRate: sampleRate), count: channels)
        weights = KWeighting.channelWeights(channels: channels)
        grid = LoudnessGrid(sampleRate: sampleRate)
        self.position = position
        self.countFrom = countFrom ?? position
        firstStep = grid.step(containing: self.countFrom)
        step = firstStep
        stepEnd = grid.start(ofStep: firstStep + 1)
    }

    /// Adds `count` samples; `sample(channel, i)` reads them.
    public mutating func add(count: Int, sample: (Int, Int) -> Float) {
        let channels = filters.count
        for i in 0..<count {
            var energy = 0.0
            var loudest: Float = 0
            for channel in 0..<channels {
                let x = sample(channel, i)
                loudest = max(loudest, abs(x))
                let y = filters[channel].filter(x)
                energy += weights[channel] * y * y
            }
            if position >= countFrom {
                samplePeak = max(samplePeak, Double(loudest))
                while position >= stepEnd {
                    step += 1
                    stepEnd = grid.start(ofStep: step + 1)
                }
                let index = Int(step - firstStep)
                while energies.count <= index { energies.append(0) }
                energies[index] += energy
            }
            position += 1
        }
    }

    /// What was counted, as a block's first pass reports it.
    public func block(_ index: Int) -> BlockLoudness {
        BlockLoudness(block: index, firstStep: firstStep, energies: energies, samplePeak: samplePeak)
    }
}
