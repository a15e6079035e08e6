import CFFmpeg
import FarmCore

/// One stream of a media file, read packet by packet without decoding: what the joiner copies
/// and the verifier checks.
public final class DemuxedStream {
    public enum Kind: Sendable {
        case video, audio

        var mediaType: AVMediaType { self == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO }
    }

    private let format: UnsafeMutablePointer<AVFormatContext>
    let stream: UnsafeMutablePointer<AVStream>

    /// Open or clean up, once (as `MediaEncoder` and `MediaInput`): opened into a local, freed
    /// here on failure, stored last so that only `deinit` ever frees what the object owns.
    /// `ordinal` picks the file's n-th stream of `kind` (a segment holds one video stream per
    /// rendition); nil, the best one, as players pick.
    public init(path: String, kind: Kind, ordinal: Int? = nil) throws {
        var opening: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegError.check(avformat_open_input(&opening, path, nil, nil), "open \(path)")
        guard let context = opening else { throw FFmpegError(operation: "open \(path)", message: "no format context") }
        let index: Int32
        do {
            try FFmpegError.check(avformat_find_stream_info(context, nil), "read streams of \(path)")
            if let ordinal {
                let matching = (0..<Int(context.pointee.nb_streams)).filter {
                    context.pointee.streams[$0]!.pointee.codecpar.pointee.codec_type == kind.mediaType
                }
                guard ordinal < matching.count else {
                    throw FFmpegError(
                        operation: "find stream in \(path)",
                        message: "holds \(matching.count) \(kind) stream(s), not \(ordinal + 1)")
                }
                index = Int32(matching[ordinal])
            } else {
                index = try FFmpegError.check(
                    av_find_best_stream(context, kind.mediaType, -1, -1, nil, 0), "find stream in \(path)")
            }
        } catch {
            avformat_close_input(&opening)
            throw error
        }
        format = context
        stream = context.pointee.streams[Int(index)]!
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = format
        avformat_close_input(&owned)
    }

    /// How many streams of `kind` the file holds.
    public var streamCount: (video: Int, audio: Int) {
        let types = (0..<Int(format.pointee.nb_streams)).map {
            format.pointee.streams[$0]!.pointee.codecpar.pointee.codec_type
        }
        return (types.filter { $0 == AVMEDIA_TYPE_VIDEO }.count, types.filter { $0 == AVMEDIA_TYPE_AUDIO }.count)
    }

    /// The stream's codec, as FFmpeg names it ("h264", "av1").
    public var codecName: String { String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)) }

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
