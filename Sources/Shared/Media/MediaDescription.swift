import CFFmpeg
import FarmCore
import Foundation

/// What a media file holds, stream by stream, in the names ffprobe prints: `farm probe`'s
/// answer, so a user sees what the farm will read and convert before a render.
public struct MediaDescription: Codable, Sendable {
    public struct Stream: Codable, Sendable {
        public var index: Int
        /// video, audio, subtitle, data or attachment.
        public var kind: String
        public var codec: String
        public var profile: String?
        /// Seconds on the container's timeline (ffprobe's start_time), if the stream says.
        public var startTime: String?
        public var duration: String?
        // Pictures.
        public var width: Int?
        public var height: Int?
        public var pixelFormat: String?
        public var bitDepth: Int?
        public var colorRange: String?
        public var colorSpace: String?
        public var colorPrimaries: String?
        public var colorTransfer: String?
        public var sampleAspectRatio: String?
        /// Clockwise degrees a player turns the picture (0, 90, 180, 270); a still's from its
        /// EXIF Orientation, as the render turns it.
        public var rotation: Int?
        /// A still whose EXIF Orientation mirrors it (left to right, before the turn); absent
        /// otherwise.
        public var mirrored: Bool?
        public var fieldOrder: String?
        public var frameRate: String?
        // Sound.
        public var sampleRate: Int?
        public var channels: Int?
        public var channelLayout: String?
        public var sampleFormat: String?
    }

    public var path: String
    /// The demuxer's name, as ffprobe's format_name.
    public var container: String
    public var startTime: String?
    public var duration: String?
    public var streams: [Stream]

    /// Reads `path`'s header and stream parameters (no decoding beyond what FFmpeg's stream
    /// probing does).
    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FFmpegError(operation: path, message: "file not found")
        }
        var context: UnsafeMutablePointer<AVFormatContext>? = try MediaInput.openFormat(
            path: path, io: nil, failure: "cannot read")
        defer { avformat_close_input(&context) }
        guard let format = context else { throw FFmpegError(operation: path, message: "cannot read") }
        try FFmpegError.check(avformat_find_stream_info(format, nil), "cannot read streams of \(path)")
        self.path = path
        container = String(cString: format.pointee.iformat.pointee.name)
        startTime = Self.seconds(format.pointee.start_time, AVRational(num: 1, den: AV_TIME_BASE))
        duration = Self.seconds(format.pointee.duration, AVRational(num: 1, den: AV_TIME_BASE))
        streams = (0..<Int(format.pointee.nb_streams)).map { Self.stream(format, index: $0) }
        // A still's EXIF Orientation is on its decoded picture, not its stream: read as the
        // render's probe reads it.
        if MediaProbe.isImageFormat(container), let video = streams.firstIndex(where: { $0.kind == "video" }),
            let still = try? MediaProbe.probe(path: path), still.kind == .still
        {
            streams[video].rotation = still.rotation
            streams[video].mirrored = still.mirrored ? true : nil
        }
    }

    private static func stream(_ format: UnsafeMutablePointer<AVFormatContext>, index: Int) -> Stream {
        let stream = format.pointee.streams[index]!
        let parameters = stream.pointee.codecpar.pointee
        var described = Stream(
            index: index, kind: av_get_media_type_string(parameters.codec_type).map { String(cString: $0) } ?? "data",
            codec: avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "unknown",
            profile: avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) },
            startTime: seconds(stream.pointee.start_time, stream.pointee.time_base),
            duration: seconds(stream.pointee.duration, stream.pointee.time_base))
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO:
            described.width = Int(parameters.width)
            described.height = Int(parameters.height)
            if let descriptor = av_pix_fmt_desc_get(AVPixelFormat(parameters.format)) {
                described.pixelFormat = String(cString: descriptor.pointee.name)
                described.bitDepth = Int(descriptor.pointee.comp.0.depth)
            }
            // Untagged ("unknown" to ffprobe): absent.
            if parameters.color_range != AVCOL_RANGE_UNSPECIFIED {
                described.colorRange = name(av_color_range_name(parameters.color_range))
            }
            if parameters.color_space != AVCOL_SPC_UNSPECIFIED {
                described.colorSpace = name(av_color_space_name(parameters.color_space))
            }
            if parameters.color_primaries != AVCOL_PRI_UNSPECIFIED {
                described.colorPrimaries = name(av_color_primaries_name(parameters.color_primaries))
            }
            if parameters.color_trc != AVCOL_TRC_UNSPECIFIED {
                described.colorTransfer = name(av_color_transfer_name(parameters.color_trc))
            }
            let aspect = av_guess_sample_aspect_ratio(format, stream, nil)
            described.sampleAspectRatio = aspect.num > 0 && aspect.den > 0 ? "\(aspect.num):\(aspect.den)" : nil
            described.rotation = cffmpeg_display_matrix(stream).map { MediaProbe.rotation(matrix: $0) } ?? 0
            described.fieldOrder = fieldOrderName(parameters.field_order)
            let rate =
                stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            described.frameRate = rate.num > 0 && rate.den > 0 ? "\(rate.num)/\(rate.den)" : nil
        case AVMEDIA_TYPE_AUDIO:
            described.sampleRate = Int(parameters.sample_rate)
            described.channels = Int(parameters.ch_layout.nb_channels)
            var layout = [CChar](repeating: 0, count: 64)
            var channelLayout = parameters.ch_layout
            if av_channel_layout_describe(&channelLayout, &layout, layout.count) > 0 {
                described.channelLayout = String(cString: layout)
            }
            described.sampleFormat = name(av_get_sample_fmt_name(AVSampleFormat(parameters.format)))
        default:
            break
        }
        return described
    }

    private static func name(_ text: UnsafePointer<CChar>?) -> String? { text.map { String(cString: $0) } }

    /// ffprobe's way of writing a time: seconds with six decimals.
    private static func seconds(_ value: Int64, _ base: AVRational) -> String? {
        guard value != cffmpeg_nopts(), base.den != 0 else { return nil }
        let exact = Rational(value) * Rational(base)
        let micros = (exact * Rational(1_000_000)).rounded
        let sign = micros < 0 ? "-" : ""
        let magnitude = abs(micros)
        let fraction = String(magnitude % 1_000_000)
        return "\(sign)\(magnitude / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }

    /// ffprobe's names for field orders.
    private static func fieldOrderName(_ order: AVFieldOrder) -> String? {
        switch order {
        case AV_FIELD_PROGRESSIVE: return "progressive"
        case AV_FIELD_TT: return "tt"
        case AV_FIELD_BB: return "bb"
        case AV_FIELD_TB: return "tb"
        case AV_FIELD_BT: return "bt"
        default: return nil
        }
    }
}
