import FarmCore
import FarmMedia
import Foundation

/// Checks an uploaded result before the coordinator accepts it, so a bad segment fails its
/// attempt instead of the final join.
public enum SegmentVerifier {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A video segment must hold exactly the chunk's frames, start with a keyframe, and carry
    /// presentation times that are exactly the frame indices 0..<n on the output frame grid.
    public static func verifyVideo(_ url: URL, chunk: Chunk, fps: Rational) throws {
        let input = try DemuxedStream(path: url.path, kind: .video)
        let toFrames = input.framesPerTick(fps: fps)
        let packet = Packet()
        var indices = Set<Int64>()
        var count: Int64 = 0
        var lastDecodeTime = Int64.min
        while try input.read(into: packet) {
            defer { packet.unref() }
            if count == 0, !packet.isKeyframe {
                throw Failure(description: "segment does not start with a keyframe")
            }
            guard let pts = packet.pts else { throw Failure(description: "packet \(count) has no timestamp") }
            let frame = Rational(pts) * toFrames
            guard frame.denominator == 1, frame.numerator >= 0, frame.numerator < chunk.frameCount else {
                throw Failure(
                    description: "packet \(count) at pts \(pts) is off the frame grid 0..<\(chunk.frameCount)")
            }
            if let dts = packet.dts {
                guard dts > lastDecodeTime else {
                    throw Failure(description: "packet \(count): decode times not increasing")
                }
                lastDecodeTime = dts
            }
            indices.insert(frame.numerator)
            count += 1
        }
        guard count == chunk.frameCount, indices.count == Int(count) else {
            throw Failure(
                description:
                    "segment holds \(count) frames (\(indices.count) distinct), chunk needs \(chunk.frameCount)")
        }
    }

    /// The audio task's file must hold an audio stream with at least one packet.
    public static func verifyAudio(_ url: URL) throws {
        let input = try DemuxedStream(path: url.path, kind: .audio)
        let packet = Packet()
        guard try input.read(into: packet) else { throw Failure(description: "audio file holds no packets") }
        packet.unref()
    }
}
