import FarmCore
import FarmMedia

/// Mixes and encodes one audio block with a fresh mixer and a fresh encoder, so the block's
/// packets are the same whoever renders it and whatever was rendered before.
///
/// An AAC packet holds a transform over two frames of sound, so a block's first packet needs
/// the sound before the block and its last one the sound after it. The encoder starts `preRoll`
/// samples early and is fed `tail` samples past the block's end; only the packets that belong
/// to the block are kept: those whose samples lie inside it. Joined, the blocks decode without
/// a click or a lag at their seams. The block that starts a render keeps the encoder's priming
/// packet and the one that ends it keeps the encoder's flush, as a single encode would.
public final class AudioBlockEncoder {
    let encoder: MediaEncoder
    private let loaded: LoadedProject
    private let block: AudioBlock
    private let render: Range<Int64>
    private let overlaps: Bool
    /// The programme's gain and limiter ceiling, for a render normalized to a loudness target.
    private let gain: ProgrammeGain?

    /// `block` is a range of timeline samples inside `render`, the samples of the whole render.
    init(
        loaded: LoadedProject, block: AudioBlock, render: Range<Int64>, gain: ProgrammeGain?, globalHeader: Bool
    ) throws {
        let project = loaded.project
        encoder = try MediaEncoder.audio(
            output: project.output.audio, settings: project.export.audio, globalHeader: globalHeader)
        self.loaded = loaded
        self.block = block
        self.render = render
        self.gain = gain
        // PCM frames stand alone: nothing before or after a block changes its samples.
        overlaps = encoder.initialPadding > 0
    }

    var startsRender: Bool { block.start == render.lowerBound }
    var endsRender: Bool { block.end == render.upperBound }

    /// Encodes the block and hands every kept packet to `write`, timestamped in samples from
    /// the render's start (the priming packet of the first block before 0).
    func encode(cancellation: StopFlag? = nil, write: (Packet) throws -> Void) throws {
        let first = startsRender || !overlaps ? block.start : max(0, block.start - AudioBlocks.preRoll)
        let last = endsRender || !overlaps ? block.end : min(render.upperBound, block.end + AudioBlocks.tail)
        let lower = startsRender ? Int64.min : block.start - render.lowerBound
        let upper = endsRender ? Int64.max : block.end - render.lowerBound
        let keep = lower..<upper
        let mixer = AudioMixer(loaded: loaded)
        let limited = try gain.map { try LimitedMix(loaded: loaded, render: render, span: first..<last, gain: $0) }
        let gained = limited.map { _ in SampleBlock(channels: loaded.project.output.audio.channels, capacity: 4096) }
        let frameSize = Int64(encoder.audioFrameSize)
        let kept = { (packet: Packet) in
            guard let pts = packet.pts, keep.contains(pts) else { return }
            try write(packet)
        }
        var next = first
        while next < last {
            if cancellation?.isRaised == true { throw RenderCancelled() }
            let count = Int(min(frameSize, last - next))
            let samples: SampleBlock
            if let limited, let gained {
                limited.copy(from: next, count: count, into: gained)
                samples = gained
            } else {
                samples = try mixer.mix(from: next, count: count)
            }
            try encoder.encode(samples, count: count, pts: next - render.lowerBound, write: kept)
            next += Int64(count)
        }
        try encoder.drain(write: kept)
    }
}
