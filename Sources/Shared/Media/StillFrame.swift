import CFFmpeg
import FarmCore

/// Frames of an encoded video file as pictures: an RGB image of a decoded frame at a size, the
/// same as ffmpeg's `scale=W:H:flags=bicubic+accurate_rnd+bitexact` to `rgb24` gives (the
/// frame's own matrix and range), and that image encoded as JPEG, PNG or WebP.
public final class StillFrame {
    public let width: Int
    public let height: Int
    /// Packed RGB, 3 bytes a pixel, rows without padding.
    public private(set) var rgb: [UInt8]

    /// A blank picture (a sheet, tiles pasted in later).
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rgb = [UInt8](repeating: 0, count: width * height * 3)
    }

    /// The frames numbered `wanted` (from 0, in display order) of the video in `path`, each
    /// scaled to `width`×`height`. With the file's frame rate and its fixed, closed GOP length
    /// (the farm's segments), each GOP holding a wanted frame is decoded from its keyframe up
    /// to its last wanted frame and no further, and the others not at all; without them, the
    /// file from its start up to the last wanted frame.
    public static func frames(
        _ wanted: Set<Int64>, of path: String, width: Int, height: Int, fps: Rational? = nil, gop: Int? = nil
    ) throws -> [Int64: StillFrame] {
        guard !wanted.isEmpty else { return [:] }
        let input = try MediaInput(path: path, stream: .video)
        let decoded = Frame()
        var pictures: [Int64: StillFrame] = [:]
        let length = Int64(max(1, gop ?? Int.max))
        let groups = Dictionary(grouping: wanted) { fps == nil ? 0 : $0 / length }
        let start = input.startTimestamp
        for (group, frames) in groups.sorted(by: { $0.key < $1.key }) {
            let last = frames.max()!
            var index = group * length
            if let fps, group > 0 {
                // Half a frame past the keyframe: the seek lands on it, not on the one before.
                let seconds = (Rational(group * length) + Rational(1, 2)) / fps
                try input.seek(toTimestamp: start + (seconds / input.timeBase).floor)
            }
            while index <= last {
                guard try input.decodeNext(into: decoded) else {
                    throw FFmpegError(operation: "still of \(path)", message: "no frame \(last): it ends at \(index)")
                }
                if let fps {
                    // Counted from the frame's own time: a seek may land a GOP early.
                    let pts = decoded.pointer.pointee.best_effort_timestamp
                    index = (Rational(pts - start) * input.timeBase * fps + Rational(1, 2)).floor
                }
                if frames.contains(index) { pictures[index] = try StillFrame(decoded, width: width, height: height) }
                decoded.unref()
                index += 1
            }
        }
        return pictures
    }

    private init(_ frame: Frame, width: Int, height: Int) throws {
        self.width = width
        self.height = height
        let source = frame.pointer.pointee
        guard
            let context = sws_getContext(
                source.width, source.height, AVPixelFormat(source.format), Int32(width), Int32(height),
                AV_PIX_FMT_RGB24, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, nil, nil, nil)
        else { throw FFmpegError(operation: "still", message: "cannot convert this picture to RGB") }
        defer { sws_freeContext(context) }
        // As ffmpeg's scale filter: the frame's matrix (BT.601 when untagged) and its range.
        let matrix = source.colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : Int32(source.colorspace.rawValue)
        let coefficients = sws_getCoefficients(matrix)
        let fullRange: Int32 = source.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        sws_setColorspaceDetails(context, coefficients, fullRange, coefficients, 0, 0, 1 << 16, 1 << 16)
        rgb = [UInt8](repeating: 0, count: width * height * 3)
        let rows = rgb.withUnsafeMutableBytes { buffer -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [buffer.bindMemory(to: UInt8.self).baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(width * 3), 0, 0, 0]
            return withUnsafePointer(to: frame.pointer.pointee.data) { data in
                withUnsafePointer(to: frame.pointer.pointee.linesize) { lines in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourcePlanes in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                            sws_scale(context, sourcePlanes, sourceStrides, 0, source.height, &planes, &strides)
                        }
                    }
                }
            }
        }
        if rows <= 0 { throw FFmpegError(code: rows, operation: "still scale") }
    }

    /// Copies `tile` into this picture with its top-left corner at `x`, `y`.
    public func paste(_ tile: StillFrame, x: Int, y: Int) {
        for row in 0..<tile.height where y + row < height {
            let count = min(tile.width, width - x) * 3
            guard count > 0 else { return }
            let from = row * tile.width * 3
            let to = ((y + row) * width + x) * 3
            rgb.replaceSubrange(to..<(to + count), with: tile.rgb[from..<(from + count)])
        }
    }

    /// The picture as a file of `format`: PNG losslessly, JPEG at quality 2 (of 31) in full-range
    /// 4:4:4, WebP at quality 90.
    public func encoded(as format: StillFormat) throws -> [UInt8] {
        let (codecID, pixelFormat): (AVCodecID, AVPixelFormat) =
            switch format {
            case .png: (AV_CODEC_ID_PNG, AV_PIX_FMT_RGB24)
            case .jpeg: (AV_CODEC_ID_MJPEG, AV_PIX_FMT_YUVJ444P)
            case .webp: (AV_CODEC_ID_WEBP, AV_PIX_FMT_YUV420P)
            }
        // WebP by libwebp's still encoder, not its animated one.
        let encoder = format == .webp ? avcodec_find_encoder_by_name("libwebp") : avcodec_find_encoder(codecID)
        guard let codec = encoder, let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "still", message: "this FFmpeg has no \(format.rawValue) encoder")
        }
        defer {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
        }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = pixelFormat
        context.pointee.time_base = AVRational(num: 1, den: 25)
        let frame = try converted(to: pixelFormat)
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        switch format {
        case .jpeg:
            context.pointee.color_range = AVCOL_RANGE_JPEG
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            frame.pointer.pointee.quality = Int32(FF_QP2LAMBDA) * 2
        case .webp:
            av_dict_set(&options, "quality", "90", 0)
        case .png:
            break
        }
        try FFmpegError.check(avcodec_open2(context, codec, &options), "open the \(format.rawValue) encoder")
        try FFmpegError.check(avcodec_send_frame(context, frame.pointer), "encode a still")
        try FFmpegError.check(avcodec_send_frame(context, nil), "encode a still")
        let packet = Packet()
        try FFmpegError.check(avcodec_receive_packet(context, packet.pointer), "encode a still")
        defer { packet.unref() }
        let data = packet.pointer.pointee
        return Array(UnsafeBufferPointer(start: data.data, count: Int(data.size)))
    }

    /// This picture in `pixelFormat`, same size (full range: a still is a picture file).
    private func converted(to pixelFormat: AVPixelFormat) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = pixelFormat.rawValue
        frame.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "still picture")
        guard
            let context = sws_getContext(
                Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height), pixelFormat,
                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, nil, nil, nil)
        else { throw FFmpegError(operation: "still", message: "cannot convert RGB") }
        defer { sws_freeContext(context) }
        let coefficients = sws_getCoefficients(SWS_CS_ITU601)
        let fullRange: Int32 = pixelFormat == AV_PIX_FMT_YUV420P ? 0 : 1
        sws_setColorspaceDetails(context, coefficients, 1, coefficients, fullRange, 0, 1 << 16, 1 << 16)
        if pixelFormat == AV_PIX_FMT_YUV420P { frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG }
        let rows = rgb.withUnsafeBufferPointer { buffer -> Int32 in
            var planes: [UnsafePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(width * 3), 0, 0, 0]
            return withUnsafeMutablePointer(to: &frame.pointer.pointee.data) { data in
                withUnsafeMutablePointer(to: &frame.pointer.pointee.linesize) { lines in
                    data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { targetPlanes in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { targetStrides in
                            sws_scale(context, &planes, &strides, 0, Int32(height), targetPlanes, targetStrides)
                        }
                    }
                }
            }
        }
        if rows <= 0 { throw FFmpegError(code: rows, operation: "still convert") }
        return frame
    }
}
