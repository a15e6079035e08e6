import FarmCore
import FarmMedia

/// The first pass of a render normalized to a loudness target (`export.audio.loudness`): each
/// audio block's mix measured on its own (`BlockLoudness`), the blocks combined over the whole
/// programme, and the one gain every block's encode applies (`ProgrammeGain`).
public enum LoudnessPass {
    /// An audio block of a normalized render asked for before its programme was measured.
    public struct Unmeasured: Error, CustomStringConvertible {
        public var block: Int
        public var description: String {
            "audio block \(block) is normalized to a loudness target but no programme gain was given: "
                + "the programme is measured first (its loudness blocks)"
        }
    }

    /// Mixes block `block` of a render covering timeline samples `render` and measures it. The
    /// K-weighting filters start `AudioBlocks.preRoll` samples early, as the AAC encoder does,
    /// so the block's figures are a continuous measurement's to within rounding.
    /// With `trial`, measures the sound the encode pass would make at that gain, through the
    /// limiter (`LimitedMix`), instead of the plain mix.
    public static func measure(
        loaded: LoadedProject, block: AudioBlock, render: Range<Int64>, trial: ProgrammeGain? = nil,
        cancellation: StopFlag? = nil
    ) throws -> BlockLoudness {
        let layout = loaded.project.output.audio
        let first = max(render.lowerBound, block.start - AudioBlocks.preRoll)
        var meter = LoudnessMeter(
            channels: layout.channels, sampleRate: layout.sampleRate, position: first - render.lowerBound,
            countFrom: block.start - render.lowerBound)
        let mixer = AudioMixer(loaded: loaded)
        let limited = try trial.map {
            try LimitedMix(loaded: loaded, render: render, span: first..<block.end, gain: $0)
        }
        let gained = SampleBlock(channels: layout.channels, capacity: 4096)
        var next = first
        while next < block.end {
            if cancellation?.isRaised == true { throw RenderCancelled() }
            let count = Int(min(4096, block.end - next))
            let samples: SampleBlock
            if let limited {
                limited.copy(from: next, count: count, into: gained)
                samples = gained
            } else {
                samples = try mixer.mix(from: next, count: count)
            }
            meter.add(count: count) { samples[$0, $1] }
            next += Int64(count)
        }
        return meter.block(block.index)
    }

    /// What follows a pass whose blocks measured `blocks` (`LoudnessTarget.step`).
    public static func step(
        _ blocks: [BlockLoudness], target: LoudnessTarget, trial: ProgrammeGain?, render: Range<Int64>,
        sampleRate: Int, lossy: Bool
    ) -> (step: LoudnessTarget.Step, programme: ProgrammeLoudness) {
        let programme = combine(blocks, render: render, sampleRate: sampleRate)
        let peak = blocks.map(\.samplePeak).max() ?? 0
        return (target.step(measured: programme, samplePeak: peak, trial: trial, lossy: lossy), programme)
    }

    /// The programme's loudness from its blocks' figures.
    public static func combine(_ blocks: [BlockLoudness], render: Range<Int64>, sampleRate: Int) -> ProgrammeLoudness {
        ProgrammeLoudness.combining(blocks, samples: Int64(render.count), sampleRate: sampleRate)
    }

    /// The passes in one process, as the coordinator runs them over a farm: `measureEvery`
    /// measures every block at a trial gain (nil: the plain mix), however the caller spreads
    /// them. Nil when the project has no loudness target; else the gain and the passes it took.
    public static func passes(
        loaded: LoadedProject, render: Range<Int64>, measureEvery: (ProgrammeGain?) throws -> [BlockLoudness]
    ) throws -> (gain: ProgrammeGain, passes: Int)? {
        let project = loaded.project
        guard let target = project.export.audio.loudness else { return nil }
        var trial: ProgrammeGain?
        for pass in 1... {
            switch step(
                try measureEvery(trial), target: target, trial: trial, render: render,
                sampleRate: project.output.audio.sampleRate, lossy: project.export.audio.isLossy
            ).step {
            case .settle(let gain): return (gain, pass)
            case .measureAgain(let next): trial = next
            }
        }
        preconditionFailure("a target settles within 1 + LoudnessTarget.limitedPasses passes")
    }

    /// Both halves on this thread (a whole-range render): every block of `render` measured,
    /// then the gain. Nil when the project has no loudness target.
    public static func gain(
        loaded: LoadedProject, render: Range<Int64>, cancellation: StopFlag? = nil
    ) throws -> ProgrammeGain? {
        let blocks = AudioBlocks.plan(samples: render, sampleRate: loaded.project.output.audio.sampleRate)
        return try passes(loaded: loaded, render: render) { trial in
            try blocks.map {
                try measure(loaded: loaded, block: $0, render: render, trial: trial, cancellation: cancellation)
            }
        }?.gain
    }
}

extension ExportSettings.Audio {
    /// Whether the codec changes the samples it is given (its peaks overshoot).
    public var isLossy: Bool { codec != .pcm }
}
