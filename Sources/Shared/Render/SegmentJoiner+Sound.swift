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
            try checkContiguous(audio, "audio blocks")
            let muxer = try Muxer(path: file.temporary.path, container: container)
            let input = try AudioBlockSequence(blocks: audio, sampleRate: sampleRate)
            let stream = try muxer.addStream(copying: input.first, timeBase: input.timeBase, frameRate: nil)
            try muxer.start()
            let packet = Packet()
            while try input.read(into: packet) {
                try muxer.write(packet, stream: stream, from: input.timeBase)
                packet.unref()
            }
            try muxer.finish()
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }
}
