import FarmCore
import FarmMedia
import Foundation

/// Reads the packets of consecutive audio block files as one stream, each packet's timestamps
/// rebuilt in samples from its block's first sample: a block's timestamps count samples from
/// its own start, so none depends on the container's idea of where the file begins.
final class AudioBlockSequence {
    private let blocks: [SegmentJoiner.Segment<AudioBlock>]
    private let sampleRate: Int
    private var index = 0
    private var current: DemuxedStream?
    /// The first stream, whose codec parameters the joined file takes.
    let first: DemuxedStream

    /// The unit of the timestamps `read` gives.
    var timeBase: Rational { Rational(1, Int64(sampleRate)) }

    init(blocks: [SegmentJoiner.Segment<AudioBlock>], sampleRate: Int) throws {
        precondition(!blocks.isEmpty, "an audio sequence needs a block")
        self.blocks = blocks
        self.sampleRate = sampleRate
        first = try DemuxedStream(path: blocks[0].url.path, kind: .audio)
        current = first
    }

    /// The next packet, timestamped in samples from the first block's start; false at the end.
    func read(into packet: Packet) throws -> Bool {
        while index < blocks.count {
            let block = blocks[index]
            let input = try current ?? DemuxedStream(path: block.url.path, kind: .audio)
            current = input
            if try input.read(into: packet) {
                let toSamples = input.timeBase * Rational(Int64(sampleRate))
                let offset = block.span.start - blocks[0].span.start
                let samples = { (stamp: Int64) in offset + (Rational(stamp) * toSamples).rounded }
                packet.pts = packet.pts.map(samples)
                packet.dts = packet.dts.map(samples)
                packet.duration = (Rational(packet.duration) * toSamples).rounded
                return true
            }
            index += 1
            current = nil
        }
        return false
    }
}
