import CFFmpeg

/// An open libavcodec encoder: video (from composited pictures) or audio (from mixed samples).
///
/// Every chunk opens a fresh encoder with the same settings, so each chunk starts with a keyframe
/// and its GOPs are closed: chunks can be joined by stream copy.
final class MediaEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let packet = Packet()

    private init(codecName: String, configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw FFmpegError(operation: "encoder \(codecName)", message: "not available in this FFmpeg build")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "encoder \(codecName)", message: "out of memory")
        }
        self.context = context
        do {
            try configure(context)
        } catch {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw error
        }
        try FFmpegError.check(avcodec_open2(context, codec, nil), "open encoder \(codecName)")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// A video encoder for `settings` at the output's size and rate.
    static func video(output: OutputSettings, settings: ExportSettings.Video, threads: Int, globalHeader: Bool) throws -> MediaEncoder {
        let name: String
        switch settings.codec {
        case .h264: name = "libx264"
        case .hevc: name = "libx265"
        case .ffv1: name = "ffv1"
        }
        return try MediaEncoder(codecName: name) { context in
            context.pointee.width = Int32(output.width)
            context.pointee.height = Int32(output.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: Int32(output.fps.denominator), den: Int32(output.fps.numerator))
            context.pointee.framerate = AVRational(num: Int32(output.fps.numerator), den: Int32(output.fps.denominator))
            context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            context.pointee.gop_size = Int32(settings.codec == .ffv1 ? 1 : settings.gop)
            context.pointee.thread_count = Int32(threads)
            context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_CLOSED_GOP))
            if globalHeader { context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_GLOBAL_HEADER)) }
            context.pointee.color_range = AVCOL_RANGE_MPEG
            context.pointee.colorspace = AVCOL_SPC_BT709
            context.pointee.color_primaries = AVCOL_PRI_BT709
            context.pointee.color_trc = AVCOL_TRC_BT709
            if let bitrate = settings.bitrate, !settings.lossless { context.pointee.bit_rate = Int64(bitrate) }
            let priv = context.pointee.priv_data
            switch settings.codec {
            case .h264:
                av_opt_set(priv, "preset", settings.preset, 0)
                if settings.lossless {
                    av_opt_set(priv, "qp", "0", 0)
                } else if settings.bitrate == nil {
                    av_opt_set(priv, "crf", "\(settings.crf)", 0)
                }
                // Fixed GOP length and no scene-cut keyframes: identical GOP structure in every chunk.
                av_opt_set(priv, "x264-params", "keyint=\(settings.gop):min-keyint=\(settings.gop):scenecut=0", 0)
            case .hevc:
                av_opt_set(priv, "preset", settings.preset, 0)
                if !settings.lossless && settings.bitrate == nil { av_opt_set(priv, "crf", "\(settings.crf)", 0) }
                var params = "log-level=error:keyint=\(settings.gop):min-keyint=\(settings.gop):scenecut=0"
                if settings.lossless { params += ":lossless=1" }
                av_opt_set(priv, "x265-params", params, 0)
            case .ffv1:
                av_opt_set(priv, "level", "3", 0)
            }
        }
    }

    /// An audio encoder for the output's sample rate and channels.
    static func audio(output: AudioLayout, settings: ExportSettings.Audio, globalHeader: Bool) throws -> MediaEncoder {
        let name = settings.codec == .aac ? "aac" : "pcm_s16le"
        return try MediaEncoder(codecName: name) { context in
            context.pointee.sample_fmt = settings.codec == .aac ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_S16
            context.pointee.sample_rate = Int32(output.sampleRate)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(output.channels))
            context.pointee.time_base = AVRational(num: 1, den: Int32(output.sampleRate))
            if settings.codec == .aac { context.pointee.bit_rate = Int64(settings.bitrate) }
            if globalHeader { context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_GLOBAL_HEADER)) }
        }
    }

    var timeBase: AVRational { context.pointee.time_base }

    /// Samples per audio frame the encoder wants (1024 for AAC); PCM takes any count.
    var audioFrameSize: Int {
        let size = Int(context.pointee.frame_size)
        return size > 0 ? size : 1024
    }

    /// Sends `frame` (nil to drain) and hands every packet that comes out to `write`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try FFmpegError.check(avcodec_send_frame(context, frame), "encode")
        while true {
            switch try CodecStep(avcodec_receive_packet(context, packet.pointer), "encode") {
            case .ready:
                defer { packet.unref() }
                try write(packet.pointer)
            case .needsInput, .endOfStream:
                return
            }
        }
    }
}
