import CFFmpeg
import Foundation

/// Joins chunk segments (video only, each starting at a keyframe) and the separately encoded
/// audio into the final file by stream copy, in-process.
///
/// Every video packet's timestamps are rebuilt from its chunk's first frame index and the output
/// frame duration: the packet's position inside its segment is counted in frames, then offset by
/// the chunk start. Container durations (rounded in MP4) are never trusted, so nothing drifts at
/// the seams. Each segment must hold exactly its chunk's frame count, else the join fails.
public enum SegmentJoiner {
    public struct Segment: Sendable {
        public var url: URL
        public var chunk: Chunk

        public init(url: URL, chunk: Chunk) {
            self.url = url
            self.chunk = chunk
        }
    }

    /// Writes `destination` atomically from `segments` (in frame order) and `audio`.
    public static func join(
        segments: [Segment], audio: URL?, fps: Rational, container: ExportSettings.Container, to destination: URL
    ) throws {
        let file = AtomicFile(destination: destination)
        do {
            try joinUnsafely(segments: segments, audio: audio, fps: fps, container: container, path: file.temporary.path)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    private static func joinUnsafely(
        segments: [Segment], audio: URL?, fps: Rational, container: ExportSettings.Container, path: String
    ) throws {
        guard let first = segments.first else { throw FFmpegError(operation: "join", message: "no segments") }
        for (previous, next) in zip(segments, segments.dropFirst()) where previous.chunk.end != next.chunk.start {
            throw FFmpegError(
                operation: "join", message: "segments are not contiguous: \(previous.chunk.frames) then \(next.chunk.frames)")
        }
        let muxer = try Muxer(path: path, container: container)
        let frameBase = AVRational(num: Int32(fps.denominator), den: Int32(fps.numerator))
        let videoInput = try DemuxedStream(path: first.url.path, type: AVMEDIA_TYPE_VIDEO)
        let videoStream = try muxer.addStream(copying: videoInput.stream, timeBase: frameBase, frameRate: fps)
        var audioInput: DemuxedStream?
        var audioStream: Int32 = -1
        if let audio {
            let input = try DemuxedStream(path: audio.path, type: AVMEDIA_TYPE_AUDIO)
            audioStream = try muxer.addStream(copying: input.stream, timeBase: input.stream.pointee.time_base, frameRate: nil)
            audioInput = input
        }
        try muxer.start()
        let packet = Packet()
        // Audio keeps its own packet: one read ahead waits here while video segments are copied.
        let audioPacket = Packet()
        var pendingAudio = false
        // Audio is interleaved by time: before each segment, copy audio up to that segment's end.
        func copyAudio(until seconds: Rational?) throws {
            guard let input = audioInput else { return }
            while true {
                if !pendingAudio {
                    guard try input.read(into: audioPacket) else { return }
                    pendingAudio = true
                }
                let timeBase = input.stream.pointee.time_base
                let stamp = audioPacket.pointer.pointee.pts != cffmpeg_nopts() ? audioPacket.pointer.pointee.pts : audioPacket.pointer.pointee.dts
                if let seconds, stamp != cffmpeg_nopts(),
                    seconds < Rational(stamp) * Rational(Int64(timeBase.num), Int64(timeBase.den))
                {
                    return
                }
                try muxer.write(audioPacket.pointer, stream: audioStream, from: timeBase)
                audioPacket.unref()
                pendingAudio = false
            }
        }
        for segment in segments {
            let input = segment.url == first.url ? videoInput : try DemuxedStream(path: segment.url.path, type: AVMEDIA_TYPE_VIDEO)
            let toFrames = input.framesPerTick(fps: fps)
            var count: Int64 = 0
            try copyAudio(until: Rational(segment.chunk.end) / fps)
            while try input.read(into: packet) {
                let pts = packet.pointer.pointee.pts
                let dts = packet.pointer.pointee.dts
                guard pts != cffmpeg_nopts() else {
                    throw FFmpegError(operation: "join \(segment.url.lastPathComponent)", message: "packet without timestamp")
                }
                packet.pointer.pointee.pts = segment.chunk.start + (Rational(pts) * toFrames).rounded
                packet.pointer.pointee.dts =
                    dts == cffmpeg_nopts() ? packet.pointer.pointee.pts : segment.chunk.start + (Rational(dts) * toFrames).rounded
                packet.pointer.pointee.duration = 1
                try muxer.write(packet.pointer, stream: videoStream, from: frameBase)
                packet.unref()
                count += 1
            }
            guard count == segment.chunk.frameCount else {
                throw FFmpegError(
                    operation: "join \(segment.url.lastPathComponent)",
                    message: "holds \(count) frames, chunk \(segment.chunk.index) needs \(segment.chunk.frameCount)")
            }
        }
        try copyAudio(until: nil)
        try muxer.finish()
    }
}

/// One stream of a media file, read packet by packet without decoding.
final class DemuxedStream {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    let stream: UnsafeMutablePointer<AVStream>

    init(path: String, type: AVMediaType) throws {
        try FFmpegError.check(avformat_open_input(&format, path, nil, nil), "open \(path)")
        do {
            try FFmpegError.check(avformat_find_stream_info(format, nil), "read streams of \(path)")
            let index = try FFmpegError.check(av_find_best_stream(format, type, -1, -1, nil, 0), "find stream in \(path)")
            stream = format!.pointee.streams[Int(index)]!
        } catch {
            avformat_close_input(&format)
            throw error
        }
    }

    deinit {
        avformat_close_input(&format)
    }

    /// Output frames per tick of this stream's time base: a timestamp times this is a frame index.
    func framesPerTick(fps: Rational) -> Rational {
        Rational(Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den)) * fps
    }

    /// The next packet of this stream; false at the end.
    func read(into packet: Packet) throws -> Bool {
        while true {
            let result = av_read_frame(format, packet.pointer)
            if result == FFmpegError.eof { return false }
            try FFmpegError.check(result, "read")
            if packet.pointer.pointee.stream_index == stream.pointee.index { return true }
            packet.unref()
        }
    }
}
