import FarmCore
import FarmMedia
import Foundation

extension SegmentJoiner {
    /// The audio blocks alone, joined as `join` joins them into an output of `container`: the
    /// same packets with the same timestamps, so the QC's measure of this file's sound is the
    /// output's (`OutputQC.MeasuredSound`'s key tells when it is).
    public static func joinSound(
        audio: [Segment<AudioBlock>], sampleRate: Int, container: ExportSettings.Container, to destination: URL
    ) throws {
        let file = AtomicFile(destination: destination)
        do {
            try joinSound(
                audio: audio, sampleRate: sampleRate, into: try Muxer(path: file.temporary.path, container: container))
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// The audio blocks alone into `muxer`, which has no streams yet, finished.
    static func joinSound(audio: [Segment<AudioBlock>], sampleRate: Int, into muxer: Muxer) throws {
        try checkContiguous(audio, "audio blocks")
        let input = try AudioBlockSequence(blocks: audio, sampleRate: sampleRate)
        let stream = try muxer.addStream(copying: input.first, timeBase: input.timeBase, frameRate: nil)
        try muxer.start()
        let packet = Packet()
        while try input.read(into: packet) {
            try muxer.write(packet, stream: stream, from: input.timeBase)
            packet.unref()
        }
        try muxer.finish()
    }
}
