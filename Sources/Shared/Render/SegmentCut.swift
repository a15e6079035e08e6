import FarmCore
import FarmMedia
import Foundation

/// A segment made from some of another's GOPs by stream copy: what a worker would have written
/// for those frames, since each GOP of an export that `encodesPerGOP` is encoded by an encoder
/// of its own wherever its chunk starts. The segment cache keeps a long chunk's GOPs under keys
/// of their own (`ChunkKeys.grains`), so an edit inside the chunk renders only the GOPs it
/// changed and the rest are cut from the cached segment.
public enum SegmentCut {
    /// Writes `destination` atomically from the frames `frames` of `source` (counted from its
    /// first frame; both ends on GOP boundaries), every video stream (one per rendition) kept,
    /// timestamps counted again from the cut's first frame, in the container a worker writes.
    public static func write(
        from source: URL, frames: Range<Int64>, fps: Rational, to destination: URL
    ) throws {
        let file = AtomicFile(destination: destination)
        do {
            try copy(from: source, frames: frames, fps: fps, to: file.temporary)
            try file.commit(durable: false)
        } catch {
            file.discard()
            throw error
        }
    }

    private static func copy(from source: URL, frames: Range<Int64>, fps: Rational, to path: URL) throws {
        let first = try DemuxedStream(path: source.path, kind: .video, ordinal: 0)
        let muxer = try Muxer(
            path: path.path, container: ChunkedRender.segmentContainer(holdingAV1: first.codecName == "av1"))
        var inputs = [first]
        for ordinal in 1..<max(1, first.streamCount.video) {
            inputs.append(try DemuxedStream(path: source.path, kind: .video, ordinal: ordinal))
        }
        let frameBase = Rational(fps.denominator, fps.numerator)
        let streams = try inputs.map {
            try muxer.addStream(copying: $0, timeBase: frameBase, frameRate: fps, colour: VideoColour(writtenIn: $0))
        }
        try muxer.start()
        let packet = Packet()
        // Stream after stream: a segment is a few seconds, which the muxer's interleaving holds.
        for (input, stream) in zip(inputs, streams) {
            let toFrames = input.framesPerTick(fps: fps)
            var count: Int64 = 0
            while try input.read(into: packet) {
                guard let pts = packet.pts else {
                    throw FFmpegError(operation: "cut \(source.lastPathComponent)", message: "packet without timestamp")
                }
                // Each GOP's packets lie within its frames, so presentation time picks them.
                let frame = (Rational(pts) * toFrames).rounded
                guard frames.contains(frame) else {
                    packet.unref()
                    continue
                }
                packet.pts = frame - frames.lowerBound
                packet.dts = packet.dts.map { (Rational($0) * toFrames).rounded - frames.lowerBound }
                packet.duration = 1
                try muxer.write(packet, stream: stream, from: frameBase)
                packet.unref()
                count += 1
            }
            guard count == Int64(frames.count) else {
                throw FFmpegError(
                    operation: "cut \(source.lastPathComponent)",
                    message: "holds \(count) of frames \(frames.lowerBound)..<\(frames.upperBound)")
            }
        }
        try muxer.finish()
    }
}
