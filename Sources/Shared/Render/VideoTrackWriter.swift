import CFFmpeg

/// Feeds composited pictures to the video encoder, with timestamps counted in frames from the
/// file's start.
///
/// When the export `encodesPerGOP`, a fresh single-threaded encoder starts at every multiple
/// of the GOP in timeline frames, so a chunk starting on such a frame encodes exactly as the
/// same frames of a whole-timeline render.
final class VideoTrackWriter {
    private let output: OutputSettings
    private let settings: ExportSettings.Video
    private let threads: Int
    private let globalHeader: Bool
    private var encoder: MediaEncoder
    let stream: Int32
    private let frame = Frame()

    init(output: OutputSettings, settings: ExportSettings.Video, threads: Int, muxer: Muxer) throws {
        self.output = output
        self.settings = settings
        self.threads = settings.encodesPerGOP ? 1 : threads
        globalHeader = muxer.needsGlobalHeader
        encoder = try MediaEncoder.video(output: output, settings: settings, threads: self.threads, globalHeader: globalHeader)
        stream = try muxer.addStream(for: encoder)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.width = Int32(output.width)
        frame.pointer.pointee.height = Int32(output.height)
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "allocate video frame")
    }

    /// Encodes `picture` as timeline frame `n`, file frame `n - first`.
    func encode(_ picture: Picture, timelineFrame n: Int64, first: Int64, muxer: Muxer) throws {
        if settings.encodesPerGOP, n != first, n % Int64(settings.gop) == 0 {
            try drain(muxer: muxer)
            encoder = try MediaEncoder.video(output: output, settings: settings, threads: threads, globalHeader: globalHeader)
        }
        try FFmpegError.check(av_frame_make_writable(frame.pointer), "frame buffer")
        Self.copy(picture, into: frame.pointer)
        frame.pointer.pointee.pts = n - first
        try encoder.encode(frame.pointer) { packet in try muxer.write(packet, stream: stream, from: encoder.timeBase) }
    }

    /// Flushes the encoder's delayed packets.
    func drain(muxer: Muxer) throws {
        try encoder.encode(nil) { packet in try muxer.write(packet, stream: stream, from: encoder.timeBase) }
    }

    private static func copy(_ picture: Picture, into frame: UnsafeMutablePointer<AVFrame>) {
        let data = frame.pointee.data
        let strides = frame.pointee.linesize
        av_image_copy_plane(data.0, strides.0, picture.planes[0], picture.strides[0], Int32(picture.width), Int32(picture.height))
        av_image_copy_plane(data.1, strides.1, picture.planes[1], picture.strides[1], Int32(picture.width / 2), Int32(picture.height / 2))
        av_image_copy_plane(data.2, strides.2, picture.planes[2], picture.strides[2], Int32(picture.width / 2), Int32(picture.height / 2))
    }
}
