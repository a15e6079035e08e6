import CFFmpeg
import FarmCore

/// A small JPEG of a video file's first frame: how the dashboard shows a finished chunk. The
/// worker makes it from the segment it encoded, so it shows what the chunk holds, whatever the
/// export's codec.
public enum Thumbnail {
    /// The JPEG bytes of `path`'s first frame, `width` pixels wide; the height keeps the
    /// picture's shape (rounded to even, as 4:2:0 wants).
    public static func jpeg(ofFirstFrameIn path: String, width: Int = 160) throws -> [UInt8] {
        let input = try MediaInput(path: path, stream: .video)
        let decoded = Frame()
        guard try input.decodeNext(into: decoded) else {
            throw FFmpegError(operation: "thumbnail of \(path)", message: "no video frame")
        }
        let source = decoded.pointer.pointee
        let height = max(
            2, Int((Double(width) * Double(source.height) / Double(max(source.width, 1)) / 2).rounded()) * 2)
        let scaled = Frame()
        scaled.pointer.pointee.width = Int32(width)
        scaled.pointer.pointee.height = Int32(height)
        scaled.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        scaled.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        try FFmpegError.check(av_frame_get_buffer(scaled.pointer, 0), "thumbnail picture")
        try scale(decoded, into: scaled)
        return try encode(scaled)
    }

    /// Scales to full-range YUV: JPEG viewers take every JPEG as full range.
    private static func scale(_ source: Frame, into target: Frame) throws {
        let input = source.pointer.pointee
        guard
            let context = sws_getContext(
                input.width, input.height, AVPixelFormat(input.format), target.pointer.pointee.width,
                target.pointer.pointee.height, AV_PIX_FMT_YUV420P, SWS_AREA, nil, nil, nil)
        else { throw FFmpegError(operation: "thumbnail", message: "cannot scale this picture") }
        defer { sws_freeContext(context) }
        let coefficients = sws_getCoefficients(SWS_CS_ITU601)
        let sourceFullRange: Int32 = input.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        sws_setColorspaceDetails(context, coefficients, sourceFullRange, coefficients, 1, 0, 1 << 16, 1 << 16)
        try FFmpegError.check(sws_scale_frame(context, target.pointer, source.pointer), "thumbnail scale")
    }

    private static func encode(_ frame: Frame) throws -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG), let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "thumbnail", message: "this FFmpeg has no JPEG encoder")
        }
        defer {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
        }
        context.pointee.width = frame.pointer.pointee.width
        context.pointee.height = frame.pointer.pointee.height
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.color_range = AVCOL_RANGE_JPEG
        context.pointee.time_base = AVRational(num: 1, den: 25)
        // A fixed quantizer: the picture's quality, not a bit rate, decides its size.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        frame.pointer.pointee.quality = Int32(FF_QP2LAMBDA) * 5
        try FFmpegError.check(avcodec_open2(context, codec, nil), "open the JPEG encoder")
        try FFmpegError.check(avcodec_send_frame(context, frame.pointer), "encode the thumbnail")
        try FFmpegError.check(avcodec_send_frame(context, nil), "encode the thumbnail")
        let packet = Packet()
        try FFmpegError.check(avcodec_receive_packet(context, packet.pointer), "encode the thumbnail")
        defer { packet.unref() }
        let data = packet.pointer.pointee
        return Array(UnsafeBufferPointer(start: data.data, count: Int(data.size)))
    }
}
