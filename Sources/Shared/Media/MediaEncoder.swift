import CFFmpeg
import FarmCore
import Foundation

/// An open libavcodec encoder: video (from composited pictures) or audio (from mixed samples).
///
/// Every chunk opens a fresh encoder with the same settings, so each chunk starts with a keyframe
/// and its GOPs are closed: chunks can be joined by stream copy.
public final class MediaEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let packet = Packet()
    /// The frame pictures or samples are copied into, allocated on first use.
    private var input: Frame?
    /// Converts the canvas for encoders that take another pixel format (ProRes).
    private var converter: OpaquePointer?
    /// Set for encoders whose decode timestamps need mending (`retime`), and the frames given.
    private let retimesPackets: Bool
    private var framesIn = 0
    /// SVT-AV1 (1.4) keeps process-wide state: each encoder's open rebuilds one table of the
    /// machine's processors (two opening at once crashed a render), and its close waits forever
    /// for an end of stream it was never sent, as does a drain before any frame. Its encoders
    /// are given a frame and drained before they are freed.
    private let isSVT: Bool
    /// Encoders whose libraries set up process-wide state when one opens or closes (SVT-AV1's
    /// processor table; x265's primitive and lookup tables) open and close one at a time.
    private let opensAlone: Bool
    private static let sharedStateLock = NSLock()
    private var drained = false
    /// The tags every input frame carries (ProRes writes the frame's, not the context's).
    private let colour: VideoColour

    /// Open or clean up, once: the context is configured and opened while only a local owns
    /// it, and stored last. A refused option or a failed open frees it here and no object exists;
    /// once stored, only `deinit` frees it (freeing it in both once crashed every FFV1 render).
    private init(
        codecName: String, colour: VideoColour = .bt709,
        configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void
    ) throws {
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw FFmpegError(operation: "encoder \(codecName)", message: "not available in this FFmpeg build")
        }
        var opening = avcodec_alloc_context3(codec)
        guard let context = opening else {
            throw FFmpegError(operation: "encoder \(codecName)", message: "out of memory")
        }
        do {
            try configure(context)
            let alone = Self.opensAlone(codecName)
            try FFmpegError.check(
                explaining: { Self.alone(alone) { avcodec_open2(context, codec, nil) } }, "open encoder \(codecName)")
        } catch {
            Self.alone(Self.opensAlone(codecName)) { avcodec_free_context(&opening) }
            throw error
        }
        self.context = context
        self.colour = colour
        retimesPackets = codecName == "libx265"
        isSVT = codecName == "libsvtav1"
        opensAlone = Self.opensAlone(codecName)
    }

    private static func opensAlone(_ codecName: String) -> Bool { ["libsvtav1", "libx265"].contains(codecName) }

    /// Runs `body` under the shared-state lock when `alone`, else as it is.
    private static func alone<T>(_ alone: Bool, _ body: () throws -> T) rethrows -> T {
        alone ? try sharedStateLock.withLock(body) : try body()
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        if isSVT && !drained {
            if framesIn == 0, let frame = try? videoFrame() {
                frame.pointee.pts = 0
                try? encode(frame) { _ in }
            }
            try? drain { _ in }
        }
        Self.alone(opensAlone) { avcodec_free_context(&owned) }
        sws_freeContext(converter)
    }

    /// Writes `picture` into `frame` in the encoder's pixel format, with the same bit-exact
    /// scaler settings as the compositor: the same canvas always gives the same frame.
    private func convert(_ picture: Picture, into frame: UnsafeMutablePointer<AVFrame>) throws {
        if converter == nil {
            converter = sws_getContext(
                Int32(picture.width), Int32(picture.height), picture.pixelFormat, context.pointee.width,
                context.pointee.height, context.pointee.pix_fmt, Scaler.flags, nil, nil, nil)
            if let converter, context.pointee.colorspace == AVCOL_SPC_RGB {
                // Limited-range YUV by the canvas's matrix to full-range RGB (swscale's default
                // would take BT.601's).
                let matrix = sws_getCoefficients(picture.depth == 10 ? SWS_CS_BT2020 : SWS_CS_ITU709)
                sws_setColorspaceDetails(converter, matrix, 0, matrix, 1, 0, 1 << 16, 1 << 16)
            }
        }
        guard let converter else {
            throw FFmpegError(operation: "encode", message: "no conversion to the encoder's pixel format")
        }

        let source = UnsafeRawPointer(picture.planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let rows = withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            withUnsafeMutablePointer(to: &frame.pointee.linesize) { strides in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    strides.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                        sws_scale(converter, source, picture.strides, 0, Int32(picture.height), planes, strides)
                    }
                }
            }
        }
        if rows <= 0 { throw FFmpegError(code: rows, operation: "convert for the encoder") }
    }

    /// SVT-AV1 prints its configuration to stderr for every encoder; only errors should show.
    /// Set once, before any encoder starts, unless the user chose a level.
    private static let quietSVT: Void = { setenv("SVT_LOG", "1", 0) }()

    /// A video encoder for `settings` at the output's size and rate.
    public static func video(output: OutputSettings, settings: ExportSettings.Video, threads: Int, globalHeader: Bool)
        throws -> MediaEncoder
    {
        let name: String
        switch settings.codec {
        case .h264: name = "libx264"
        case .hevc: name = "libx265"
        case .ffv1: name = "ffv1"
        case .prores: name = "prores_ks"
        case .av1: name = "libsvtav1"
        case .png, .tiff, .dpx, .exr: name = settings.codec.rawValue
        }
        let colour = VideoColour(output.dynamicRange)
        return try MediaEncoder(codecName: name, colour: colour) { context in
            context.pointee.width = Int32(output.width)
            context.pointee.height = Int32(output.height)
            // The canvas's format, but ProRes is 4:2:2 10-bit: the canvas is converted on the way in
            // (`encode(_:pts:write:)`).
            let deep = output.dynamicRange.depth == 10
            context.pointee.pix_fmt =
                imageFormat(settings.codec, deep: deep)
                ?? (settings.codec == .prores
                    ? AV_PIX_FMT_YUV422P10LE : deep ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P)
            context.pointee.time_base = AVRational(Rational(output.fps.denominator, output.fps.numerator))
            context.pointee.framerate = AVRational(output.fps)
            context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            context.pointee.gop_size = Int32(settings.isIntraOnly ? 1 : settings.gop)
            context.pointee.thread_count = Int32(threads)
            context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_CLOSED_GOP))
            if globalHeader { context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_GLOBAL_HEADER)) }
            colour.tag(context)
            // Image frames are RGB at full range: the canvas converted by its own matrix.
            if settings.codec.isImage {
                context.pointee.color_range = AVCOL_RANGE_JPEG
                context.pointee.colorspace = AVCOL_SPC_RGB
            }
            if let bitrate = settings.bitrate, !settings.lossless { context.pointee.bit_rate = Int64(bitrate) }
            if let maxrate = settings.maxrate, !settings.lossless {
                context.pointee.rc_max_rate = Int64(maxrate)
                context.pointee.rc_buffer_size = Int32(clamping: settings.bufsize ?? maxrate * 2)
            }
            // An option the encoder refuses is an error: silently ignored, it would change the output.
            func option(_ key: String, _ value: String) throws {
                try FFmpegError.check(
                    explaining: { av_opt_set(context.pointee.priv_data, key, value, 0) },
                    "\(name) option \(key)=\(value)")
            }
            switch settings.codec {
            case .h264:
                try option("preset", settings.preset)
                if settings.lossless {
                    try option("qp", "0")
                } else if settings.bitrate == nil {
                    try option("crf", "\(settings.crf)")
                }
                // Fixed GOP length and no scene-cut keyframes: identical GOP structure in every
                // chunk; a named instruction set: identical bytes (`X264InstructionSet`).
                var params = "keyint=\(settings.gop):min-keyint=\(settings.gop):scenecut=0"
                if let set = X264InstructionSet.parameter { params += ":asm=\(set)" }
                try option("x264-params", params)
            case .hevc:
                try option("preset", settings.preset)
                if !settings.lossless && settings.bitrate == nil { try option("crf", "\(settings.crf)") }
                // libx265 ignores the codec context's thread count: it starts a pool on every
                // core, encodes frames in parallel and splits its lookahead into slices, so a
                // "single-threaded" encoder per GOP made other decisions when the machine was busy
                // (2 of 8 renders of one project under load, until all three were off).
                let pool = threads > 1 ? "pools=\(threads)" : "pools=none:frame-threads=1:lookahead-slices=0"
                var params = "log-level=error:keyint=\(settings.gop):min-keyint=\(settings.gop):scenecut=0"
                params += ":\(pool)"
                if settings.lossless { params += ":lossless=1" }
                try option("x265-params", params)
            case .ffv1:
                // Version 3: per-slice CRCs, and the format archives (and `ffmpeg -level 3`) use.
                // The level is a field of the codec context, not one of FFV1's private options.
                context.pointee.level = 3
            case .av1:
                _ = quietSVT
                // SVT-AV1's presets are numbers, fastest 12; x264's names map onto them.
                let presets = [
                    "ultrafast": 12, "superfast": 11, "veryfast": 10, "faster": 9, "fast": 8, "medium": 6, "slow": 4,
                    "slower": 3, "veryslow": 2, "placebo": 1,
                ]
                try option("preset", "\(presets[settings.preset] ?? 10)")
                if settings.bitrate == nil { try option("crf", "\(settings.crf)") }
                try option("svtav1-params", "scd=0")
            case .png, .tiff, .dpx:
                break
            case .exr:
                // Half floats, ZIP-compressed by 16 lines: what finishing tools write and read.
                try option("format", "half")
                try option("compression", "zip16")
            case .prores:
                try option("profile", "hq")
                // Apple's vendor code: editors and players then take the file for what it is.
                try option("vendor", "apl0")
            }
            for (key, value) in settings.encoderOptions.sorted(by: { $0.key < $1.key }) { try option(key, value) }
        }
    }

    /// The RGB format an image codec's frames are written in: as many bits as the canvas has
    /// (PNG and TIFF 16 for a 10-bit one), DPX at 10, EXR in floats (stored as halves).
    private static func imageFormat(_ codec: ExportSettings.VideoCodec, deep: Bool) -> AVPixelFormat? {
        switch codec {
        case .png: return deep ? AV_PIX_FMT_RGB48BE : AV_PIX_FMT_RGB24
        case .tiff: return deep ? AV_PIX_FMT_RGB48LE : AV_PIX_FMT_RGB24
        case .dpx: return AV_PIX_FMT_GBRP10LE
        case .exr: return AV_PIX_FMT_GBRPF32LE
        default: return nil
        }
    }

    /// An audio encoder for the output's sample rate and channels.
    public static func audio(output: AudioLayout, settings: ExportSettings.Audio, globalHeader: Bool) throws
        -> MediaEncoder
    {
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

    /// The unit of the timestamps given to `encode` and of the packets it hands out.
    public var timeBase: Rational { Rational(context.pointee.time_base) }

    /// Samples the encoder puts before the sound (AAC's priming, 1024); its packets' timestamps
    /// run that much behind the samples given to it.
    public var initialPadding: Int { Int(context.pointee.initial_padding) }

    /// Samples per audio frame the encoder wants (1024 for AAC); PCM takes any count.
    public var audioFrameSize: Int {
        let size = Int(context.pointee.frame_size)
        return size > 0 ? size : 1024
    }

    /// Encodes `picture` (the output's size) as the frame at `pts` and hands every packet that
    /// comes out to `write`, valid only during the call.
    public func encode(_ picture: Picture, pts: Int64, write: (Packet) throws -> Void) throws {
        let frame = try videoFrame()
        // A rendition's encoder takes the canvas scaled to its size, as ProRes takes it converted.
        if context.pointee.pix_fmt == picture.pixelFormat, Int(context.pointee.width) == picture.width,
            Int(context.pointee.height) == picture.height
        {
            picture.copy(into: frame)
        } else {
            try convert(picture, into: frame)
        }
        frame.pointee.pts = pts
        framesIn += 1
        try encode(frame, write: write)
    }

    /// The writable input frame at the encoder's size and pixel format.
    private func videoFrame() throws -> UnsafeMutablePointer<AVFrame> {
        let frame = try inputFrame { frame in
            frame.pointee.format = context.pointee.pix_fmt.rawValue
            frame.pointee.width = context.pointee.width
            frame.pointee.height = context.pointee.height
            // ProRes writes the frame's own colour tags into its header, not the context's.
            colour.tag(frame)
        }
        try FFmpegError.check(av_frame_make_writable(frame), "frame buffer")
        return frame
    }

    /// libx265 (3.5) derives decode timestamps from the gap between its first frame and the one
    /// after its B-frame delay (up to 2), and reads that gap unset when it gets no more frames
    /// than the delay (a one- or two-frame chunk): the dts is then stack garbage, and the muxer
    /// refuses the packet or writes nonsense. Two frames or fewer cannot be reordered (a B-frame
    /// needs a reference on each side), so their decode timestamps are their presentation ones.
    /// From three frames on, x265's own are right and are kept.
    private func retime(_ packet: Packet) {
        guard retimesPackets, framesIn <= 2 else { return }
        packet.pointer.pointee.dts = packet.pointer.pointee.pts
    }

    /// Encodes the first `count` samples of `samples` (at most `audioFrameSize`) starting at
    /// sample `pts`, and hands every packet that comes out to `write`.
    public func encode(_ samples: SampleBlock, count: Int, pts: Int64, write: (Packet) throws -> Void) throws {
        let frame = try inputFrame { frame in
            frame.pointee.format = context.pointee.sample_fmt.rawValue
            frame.pointee.nb_samples = Int32(audioFrameSize)
            frame.pointee.sample_rate = context.pointee.sample_rate
            try FFmpegError.check(
                av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout), "audio layout")
        }
        try FFmpegError.check(av_frame_make_writable(frame), "audio frame buffer")
        frame.pointee.nb_samples = Int32(count)
        Self.fill(frame, from: samples, count: count)
        frame.pointee.pts = pts
        try encode(frame, write: write)
    }

    /// Flushes the encoder's delayed packets to `write`; the encoder takes nothing afterwards.
    public func drain(write: (Packet) throws -> Void) throws {
        drained = true
        try encode(nil, write: write)
    }

    /// The reusable input frame, set up by `describe` and given buffers the first time.
    private func inputFrame(_ describe: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws -> UnsafeMutablePointer<
        AVFrame
    > {
        if let input { return input.pointer }
        let frame = Frame()
        try describe(frame.pointer)
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "allocate encoder frame")
        input = frame
        return frame.pointer
    }

    private static func fill(_ frame: UnsafeMutablePointer<AVFrame>, from samples: SampleBlock, count: Int) {
        if AVSampleFormat(frame.pointee.format) == AV_SAMPLE_FMT_FLTP {
            for (channel, buffer) in samples.buffers.enumerated() {
                frame.pointee.extended_data[channel]!.withMemoryRebound(to: Float.self, capacity: count) {
                    $0.update(from: buffer, count: count)
                }
            }
            return
        }
        // Interleaved signed 16-bit (PCM): clamp, then round to nearest.
        let channels = samples.channels
        frame.pointee.data.0!.withMemoryRebound(to: Int16.self, capacity: count * channels) { target in
            for i in 0..<count {
                for channel in 0..<channels {
                    let value = max(-1, min(1, samples.buffers[channel][i])) * 32767
                    target[i * channels + channel] = Int16(value.rounded())
                }
            }
        }
    }

    /// Sends `frame` (nil to drain) and hands every packet that comes out to `write`.
    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?, write: (Packet) throws -> Void) throws {
        try FFmpegError.check(avcodec_send_frame(context, frame), "encode")
        while true {
            switch try CodecStep(avcodec_receive_packet(context, packet.pointer), "encode") {
            case .ready:
                defer { packet.unref() }
                retime(packet)
                try write(packet)
            case .needsInput, .endOfStream:
                return
            }
        }
    }
}
