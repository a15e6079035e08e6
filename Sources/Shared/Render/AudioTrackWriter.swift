import FarmCore
import FarmMedia

/// Writes a render's sound into a file as audio blocks (`AudioBlocks`), each mixed and encoded
/// by its own `AudioBlockEncoder`, with timestamps in samples from the file's first block.
///
/// A whole render writes every block of its range; a farm worker writes one block to a file of
/// its own, which the coordinator joins with the others.
final class AudioTrackWriter {
    private let loaded: LoadedProject
    private var blocks: ArraySlice<AudioBlock>
    private let render: Range<Int64>
    private let stream: Int
    private let globalHeader: Bool
    /// Samples from the render's start to the file's: the first block's offset.
    private let origin: Int64
    /// The first block's encoder, made early because the muxer needs its parameters.
    private var firstEncoder: AudioBlockEncoder?
    private let gain: ProgrammeGain?

    /// `blocks`, in order, of the render that covers timeline samples `render`.
    /// `gain`: the programme's, for a render normalized to a loudness target (`LoudnessPass`).
    init(
        loaded: LoadedProject, blocks: [AudioBlock], render: Range<Int64>, gain: ProgrammeGain?, muxer: Muxer
    ) throws {
        precondition(!blocks.isEmpty, "an audio track needs a block")
        self.loaded = loaded
        self.blocks = blocks[...]
        self.render = render
        globalHeader = muxer.needsGlobalHeader
        self.gain = gain
        let first = try AudioBlockEncoder(
            loaded: loaded, block: blocks[0], render: render, gain: gain, globalHeader: globalHeader)
        stream = try muxer.addStream(for: first.encoder, startsFile: first.startsRender)
        origin = blocks[0].start - render.lowerBound
        firstEncoder = first
    }

    /// Encodes every block that starts before timeline sample `end`.
    func encode(upTo end: Int64, muxer: Muxer, cancellation: StopFlag?) throws {
        while let block = blocks.first, block.start < end {
            blocks.removeFirst()
            let encoder =
                try firstEncoder
                ?? AudioBlockEncoder(
                    loaded: loaded, block: block, render: render, gain: gain, globalHeader: globalHeader)
            firstEncoder = nil
            let timeBase = encoder.encoder.timeBase
            try encoder.encode(cancellation: cancellation) { packet in
                packet.pts = packet.pts.map { $0 - origin }
                packet.dts = packet.dts.map { $0 - origin }
                try muxer.write(packet, stream: stream, from: timeBase)
            }
        }
    }

    /// Encodes the blocks not written yet.
    func finish(muxer: Muxer, cancellation: StopFlag?) throws {
        try encode(upTo: .max, muxer: muxer, cancellation: cancellation)
    }
}
