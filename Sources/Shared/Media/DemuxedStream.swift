import CFFmpeg
import FarmCore

/// One stream of a media file, read packet by packet without decoding: what the joiner copies
/// and the verifier checks.
public final class DemuxedStream {
    public enum Kind: Sendable {
        case video, audio

        var mediaType: AVMediaType { self == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO }
    }

    private var format: UnsafeMutablePointer<AVFormatContext>?
    let stream: UnsafeMutablePointer<AVStream>

    public init(path: String, kind: Kind) throws {
        try FFmpegError.check(avformat_open_input(&format, path, nil, nil), "open \(path)")
        do {
            try FFmpegError.check(avformat_find_stream_info(format, nil), "read streams of \(path)")
            let index = try FFmpegError.check(
                av_find_best_stream(format, kind.mediaType, -1, -1, nil, 0), "find stream in \(path)")
            stream = format!.pointee.streams[Int(index)]!
        } catch {
            avformat_close_input(&format)
            throw error
        }
    }

    deinit {
        avformat_close_input(&format)
    }

    /// The unit of this stream's timestamps, in seconds.
    public var timeBase: Rational { Rational(stream.pointee.time_base) }

    /// Output frames per tick of this stream's time base: a timestamp times this is a frame index.
    public func framesPerTick(fps: Rational) -> Rational {
        timeBase * fps
    }

    /// Reads the next packet of this stream into `packet`; false at the end.
    public func read(into packet: Packet) throws -> Bool {
        while true {
            let result = av_read_frame(format, packet.pointer)
            if result == FFmpegError.eof { return false }
            try FFmpegError.check(result, "read")
            if packet.pointer.pointee.stream_index == stream.pointee.index { return true }
            packet.unref()
        }
    }
}
