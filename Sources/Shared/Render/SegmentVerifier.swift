import FarmCore
import FarmMedia
import Foundation

/// Checks an uploaded result before the coordinator accepts it, so a bad segment fails its
/// attempt instead of the final join.
public enum SegmentVerifier {
    /// The child's side (`HelperCommand.verifySegments`): answers each line on standard input (a
    /// JSON `Request`) with one line of JSON, a `Verdict`, until its input ends.
    public static func serve() {
        FFmpegLog.configure(verbose: false)
        HelperProcess.serve { Verdict.of(requestLine: $0).line }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// A video segment must hold exactly the chunk's frames, start with a keyframe, and carry
    /// presentation times that are exactly the frame indices 0..<n on the output frame grid: in
    /// every video stream it holds (one per rendition; a worker of the job's kind writes them all,
    /// and the join finds any it lacks).
    public static func verifyVideo(_ url: URL, chunk: Chunk, fps: Rational) throws {
        let streams = try DemuxedStream(path: url.path, kind: .video, ordinal: 0).streamCount.video
        for ordinal in 0..<streams {
            do {
                try verifyVideo(url, stream: ordinal, chunk: chunk, fps: fps)
            } catch let failure as Failure where streams > 1 {
                throw Failure(description: "video stream \(ordinal + 1) of \(streams): \(failure.description)")
            }
        }
    }

    private static func verifyVideo(_ url: URL, stream ordinal: Int, chunk: Chunk, fps: Rational) throws {
        let input = try DemuxedStream(path: url.path, kind: .video, ordinal: ordinal)
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

    /// An audio block must hold packets that follow each other without a gap, timed in samples
    /// from the block's start, covering the block: exactly, but for the encoder's priming before
    /// a render's first block and its flush after the last.
    public static func verifyAudio(_ url: URL, block: AudioBlock, sampleRate: Int, startsRender: Bool, endsRender: Bool)
        throws
    {
        let input = try DemuxedStream(path: url.path, kind: .audio)
        let toSamples = input.timeBase * Rational(Int64(sampleRate))
        let packet = Packet()
        var first: Int64?
        var next: Int64?
        var count = 0
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard let stamp = packet.pts else { throw Failure(description: "audio packet \(count) has no timestamp") }
            let pts = Rational(stamp) * toSamples
            let duration = Rational(packet.duration) * toSamples
            guard pts.denominator == 1, duration.denominator == 1, duration.numerator > 0 else {
                throw Failure(description: "audio packet \(count) at \(stamp) is off the sample grid")
            }
            if let next, pts.numerator != next {
                throw Failure(description: "audio packet \(count) starts at sample \(pts.numerator), not \(next)")
            }
            first = first ?? pts.numerator
            next = pts.numerator + duration.numerator
            count += 1
        }
        guard let first, let end = next else { throw Failure(description: "audio block holds no packets") }
        let length = block.end - block.start
        guard startsRender ? first <= 0 : first == 0 else {
            throw Failure(description: "audio block starts at sample \(first), not 0")
        }
        guard endsRender ? end >= length : end == length else {
            throw Failure(description: "audio block covers \(end) samples, the block has \(length)")
        }
    }
}

extension SegmentVerifier {
    /// One check, as the coordinator asks a verifier process for it: a line of JSON.
    public struct Request: Codable, Sendable {
        public var path: String
        public var kind: ChunkKind
        /// Frames of a video segment, samples of an audio block.
        public var length: Int64
        /// The output frame rate, for video.
        public var fps: Rational
        public var sampleRate: Int
        /// An audio block that starts or ends the render, where the encoder's priming or flush may lie.
        public var startsRender: Bool
        public var endsRender: Bool

        public init(
            path: String, kind: ChunkKind, length: Int64, fps: Rational, sampleRate: Int, startsRender: Bool,
            endsRender: Bool
        ) {
            self.path = path
            self.kind = kind
            self.length = length
            self.fps = fps
            self.sampleRate = sampleRate
            self.startsRender = startsRender
            self.endsRender = endsRender
        }

        public func check() throws {
            let url = URL(fileURLWithPath: path)
            switch kind {
            case .video:
                try verifyVideo(url, chunk: Chunk(index: 0, start: 0, end: length), fps: fps)
            case .audio:
                try verifyAudio(
                    url, block: AudioBlock(index: 0, start: 0, end: length), sampleRate: sampleRate,
                    startsRender: startsRender, endsRender: endsRender)
            case .loudness:
                try verifyLoudness(url, samples: length, sampleRate: sampleRate)
            }
        }
    }

    /// A loudness block's figures: readable, one finite, non-negative energy per 100 ms step
    /// its `samples` can overlap, no more.
    public static func verifyLoudness(_ url: URL, samples: Int64, sampleRate: Int) throws {
        let measured: BlockLoudness
        do {
            measured = try JSONDecoder().decode(BlockLoudness.self, from: Data(contentsOf: url))
        } catch {
            throw Failure(description: "loudness figures unreadable: \(error)")
        }
        let most = Int(samples * 10 / Int64(sampleRate)) + 2
        guard !measured.energies.isEmpty, measured.energies.count <= most else {
            throw Failure(
                description: "loudness figures hold \(measured.energies.count) steps; the block has at most \(most)")
        }
        guard measured.energies.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            throw Failure(description: "loudness figures hold a negative or non-finite energy")
        }
    }
}
