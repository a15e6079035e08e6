import CFFmpeg
import FarmCore
import Foundation

/// Writes encoded streams into a container file with libavformat.
///
/// MP4 and MOV get the moov atom first (`+faststart`) so players can start before the download
/// ends. `finish()` writes the trailer; it is explicit because it can fail.
public final class Muxer {
    private var format: UnsafeMutablePointer<AVFormatContext>
    var streams: [(stream: UnsafeMutablePointer<AVStream>, timeBase: AVRational)] = []
    /// The encoders of subtitle streams, by stream index.
    var subtitleEncoders: [Int: SubtitleEncoder] = [:]
    private let path: String
    let container: ExportSettings.Container
    private let movieTimescale: Int?
    /// The muxer's options in place of a file container's (`init(hlsPlaylist:…)`,
    /// `init(fragmentedPath:)`); nil for a file.
    private var headerOptions: [(String, String)]?
    private var opened = false

    /// `movieTimescale` (MP4 and MOV) is the unit of the file's edit lists, milliseconds unless
    /// given: a file whose sound must end on an exact sample (an audio block) gives its sample
    /// rate, or the demuxer trims its last packet to the millisecond.
    public init(path: String, container: ExportSettings.Container, movieTimescale: Int? = nil) throws {
        self.path = path
        self.container = container
        self.movieTimescale = movieTimescale
        let name: String
        switch container {
        case .mp4: name = "mp4"
        case .mov: name = "mov"
        case .mkv: name = "matroska"
        case .hls: name = "hls"
        // Numbered frames are files written from the packets (`FrameFiles`), one per frame.
        case .frames: name = "image2"
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegError.check(avformat_alloc_output_context2(&context, nil, name, path), "create \(path)")
        guard let context else { throw FFmpegError(operation: "create \(path)", message: "no muxer for \(name)") }
        format = context
    }

    /// A media playlist at `path` (an HLS rendition: one video stream, or the sound) whose CMAF
    /// segments, `init.mp4` and `NNNNN.m4s` beside it, are cut at the first keyframe at or after
    /// every `segmentSeconds` (libavformat's hls muxer counts them from the stream's start).
    public convenience init(hlsPlaylist path: String, segmentSeconds: Rational) throws {
        try self.init(path: path, container: .hls)
        let folder = (path as NSString).deletingLastPathComponent
        // In whole microseconds, the muxer's unit, rounded down (less a microsecond for the
        // packet's own rounding): the n-th cut then falls on the keyframe at n segments, not
        // the one after, for a million segments at any frame rate.
        let microseconds = (segmentSeconds * Rational(1_000_000)).floor - 1
        headerOptions = [
            ("hls_time", String(format: "%lld.%06lld", microseconds / 1_000_000, microseconds % 1_000_000)),
            ("hls_playlist_type", "vod"),
            ("hls_segment_type", "fmp4"),
            ("hls_fmp4_init_filename", "init.mp4"),
            ("hls_segment_filename", folder + "/%05d.m4s"),
            ("hls_flags", "independent_segments"),
            ("start_number", "1"),
        ]
    }

    /// A fragmented MP4 at `path` (CMAF's shape): an empty `moov`, then a `moof` and `mdat` per
    /// keyframe, each fragment's decode time (`tfdt`) the packets' own, never moved to zero.
    public convenience init(fragmentedPath path: String) throws {
        try self.init(path: path, container: .mp4)
        headerOptions = [
            ("movflags", "+frag_keyframe+empty_moov+default_base_moof+frag_discont"),
            ("avoid_negative_ts", "make_non_negative"),
        ]
    }

    deinit {
        if opened { avio_closep(&format.pointee.pb) }
        avformat_free_context(format)
    }

    /// A four-character code as FFmpeg stores it (MKTAG).
    private static func tag(_ code: String) -> UInt32 {
        code.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    /// Whether a copied stream's codec tag means the same in this container, by the rule the
    /// ffmpeg program uses for stream copies: the container has no tag table, the tag names the
    /// same codec in it, or the codec has no tag of its own there. ProRes in Matroska needs this:
    /// its tag (apch) is the profile, and a copy without it would lose the profile. Otherwise
    /// the muxer chooses (an MP4 tag may mean nothing in another container).
    private func keepsTag(of parameters: AVCodecParameters) -> Bool {
        guard let table = format.pointee.oformat.pointee.codec_tag else { return true }
        if av_codec_get_id(table, parameters.codec_tag) == parameters.codec_id { return true }
        var tag: UInt32 = 0
        return av_codec_get_tag2(table, parameters.codec_id, &tag) == 0
    }

    /// Encoders must know this before they open.
    public var needsGlobalHeader: Bool { (format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// Adds a stream carrying `encoder`'s packets; returns its index. `startsFile` false marks
    /// sound that continues another file's (an audio block after the first): the container must
    /// not trim the encoder's priming samples from its start, since the packets carry none.
    public func addStream(for encoder: MediaEncoder, startsFile: Bool = true) throws -> Int {
        let isVideo = encoder.context.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        let timeBase = encoder.context.pointee.time_base
        return try addStream(timeBase: timeBase, frameRate: isVideo ? encoder.context.pointee.framerate : nil) {
            let result = avcodec_parameters_from_context($0, encoder.context)
            if !startsFile { $0.pointee.initial_padding = 0 }
            return result
        }
    }

    /// Adds a stream that takes packets copied from `source` as they are (no re-encoding), with
    /// timestamps in `timeBase`, tagged `colour` if given; returns its index.
    public func addStream(
        copying source: DemuxedStream, timeBase: Rational, frameRate: Rational?, colour: VideoColour? = nil
    ) throws -> Int {
        try addStream(timeBase: AVRational(timeBase), frameRate: frameRate.map(AVRational.init)) { parameters in
            let result = avcodec_parameters_copy(parameters, source.stream.pointee.codecpar)
            // The rate a demuxer measured over one segment is that segment's, not the output's
            // (MP4 writes it into a btrt box): left out, the file does not depend on the chunking.
            parameters.pointee.bit_rate = 0
            colour?.tag(parameters)
            if !keepsTag(of: parameters.pointee) { parameters.pointee.codec_tag = 0 }
            return result
        }
    }

    func addStream(
        timeBase: AVRational, frameRate: AVRational?,
        parameters fill: (UnsafeMutablePointer<AVCodecParameters>) -> Int32
    ) throws -> Int {
        guard let stream = avformat_new_stream(format, nil) else {
            throw FFmpegError(operation: "add stream to \(path)", message: "out of memory")
        }
        try FFmpegError.check(fill(stream.pointee.codecpar), "stream parameters")
        // HEVC in MP4 and MOV is tagged hvc1 (parameter sets in the sample description), the
        // tag Apple's players require; FFmpeg's default, hev1, they refuse.
        if stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC, container != .mkv {
            stream.pointee.codecpar.pointee.codec_tag = Self.tag("hvc1")
        }
        stream.pointee.time_base = timeBase
        if let frameRate { stream.pointee.avg_frame_rate = frameRate }
        streams.append((stream, timeBase))
        return streams.count - 1
    }

    public func start() throws {
        // The hls muxer opens its playlist and segments itself.
        if (format.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0 {
            try FFmpegError.check(avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE), "open \(path) for writing")
            opened = true
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if let headerOptions {
            for (key, value) in headerOptions { av_dict_set(&options, key, value, 0) }
        } else if container != .mkv {
            // The colr atom: a MOV or MP4 player reads a ProRes or FFV1 stream's colour from it.
            av_dict_set(&options, "movflags", "+faststart+write_colr", 0)
            if let movieTimescale { av_dict_set(&options, "movie_timescale", String(movieTimescale), 0) }
        }
        try FFmpegError.check(avformat_write_header(format, &options), "write header of \(path)")
        // Options the muxer did not take stay in the dictionary; ignored, they would change the file.
        if let unused = av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw FFmpegError(
                operation: "write header of \(path)",
                message: "the muxer has no option \(String(cString: unused.pointee.key))")
        }
        // The muxer may have chosen its own time bases (MP4 picks a multiple of the frame rate).
        for index in streams.indices { streams[index].timeBase = streams[index].stream.pointee.time_base }
    }

    /// Writes `packet` (timestamps in `timeBase`) to stream `index`; the packet is left empty.
    public func write(_ packet: Packet, stream index: Int, from timeBase: Rational) throws {
        try write(packet.pointer, stream: index, from: AVRational(timeBase))
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, stream index: Int, from timeBase: AVRational) throws {
        packet.pointee.stream_index = Int32(index)
        av_packet_rescale_ts(packet, timeBase, streams[index].timeBase)
        try FFmpegError.check(av_interleaved_write_frame(format, packet), "write to \(path)")
    }

    /// Writes the trailer (the index of an MP4 or MOV) and closes the file.
    public func finish() throws {
        try FFmpegError.check(av_write_trailer(format), "finish \(path)")
        if opened { avio_closep(&format.pointee.pb) }
        opened = false
    }
}
