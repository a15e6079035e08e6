import CFFmpeg
import FarmCore

/// Writes pictures as a looping animated GIF (FFmpeg's GIF encoder and muxer). Every picture is
/// reduced to one fixed palette of 252 colours (6 levels of red, 7 of green, 6 of blue) with a
/// 4×4 ordered dither: the same picture always gives the same bytes, whichever machine or
/// chunk made it, and no picture's colours depend on another's.
public enum AnimatedGIF {
    /// Writes `pictures` (all one size) to `path`, shown `fps` a second, looping forever.
    public static func write(_ pictures: [StillFrame], fps: Rational, to path: String) throws {
        guard let first = pictures.first else { return }
        var format: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegError.check(avformat_alloc_output_context2(&format, nil, "gif", path), "GIF muxer for \(path)")
        guard let format else { throw FFmpegError(operation: "GIF", message: "no muxer") }
        defer { avformat_free_context(format) }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_GIF), let encoder = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "GIF", message: "this FFmpeg has no GIF encoder")
        }
        var owned: UnsafeMutablePointer<AVCodecContext>? = encoder
        defer { avcodec_free_context(&owned) }
        encoder.pointee.width = Int32(first.width)
        encoder.pointee.height = Int32(first.height)
        encoder.pointee.pix_fmt = AV_PIX_FMT_PAL8
        // GIF delays count hundredths of a second.
        encoder.pointee.time_base = AVRational(num: 1, den: 100)
        try FFmpegError.check(avcodec_open2(encoder, codec, nil), "open the GIF encoder")
        guard let stream = avformat_new_stream(format, nil) else {
            throw FFmpegError(operation: "GIF", message: "no stream")
        }
        try FFmpegError.check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder), "GIF stream")
        stream.pointee.time_base = encoder.pointee.time_base
        try FFmpegError.check(avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE), "open \(path)")
        defer { avio_closep(&format.pointee.pb) }
        try FFmpegError.check(avformat_write_header(format, nil), "GIF header")
        let packet = Packet()
        func drain() throws {
            while avcodec_receive_packet(encoder, packet.pointer) == 0 {
                av_packet_rescale_ts(packet.pointer, encoder.pointee.time_base, stream.pointee.time_base)
                packet.pointer.pointee.stream_index = stream.pointee.index
                try FFmpegError.check(av_interleaved_write_frame(format, packet.pointer), "write a GIF frame")
            }
        }
        for (index, picture) in pictures.enumerated() {
            let frame = try paletted(picture)
            frame.pointer.pointee.pts = (Rational(Int64(index) * 100) / fps + Rational(1, 2)).floor
            try FFmpegError.check(avcodec_send_frame(encoder, frame.pointer), "encode a GIF frame")
            try drain()
        }
        try FFmpegError.check(avcodec_send_frame(encoder, nil), "end the GIF")
        try drain()
        try FFmpegError.check(av_write_trailer(format), "GIF trailer")
    }

    /// The palette's level of each channel a value lands on, dithered by its place.
    static let levels = (red: 6, green: 7, blue: 6)

    /// 4×4 Bayer thresholds, from 1/32 to 31/32.
    private static let bayer: [Double] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5].map {
        (Double($0) + 0.5) / 16
    }

    private static func paletted(_ picture: StillFrame) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.width = Int32(picture.width)
        frame.pointer.pointee.height = Int32(picture.height)
        frame.pointer.pointee.format = AV_PIX_FMT_PAL8.rawValue
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "GIF picture")
        guard let indices = frame.pointer.pointee.data.0, let palette = frame.pointer.pointee.data.1 else {
            throw FFmpegError(operation: "GIF", message: "no picture buffer")
        }
        palette.withMemoryRebound(to: UInt32.self, capacity: 256) { entries in
            for index in 0..<256 {
                let (red, green, blue) = (index / 42, index / 6 % 7, index % 6)
                entries[index] =
                    index < 252
                    ? 0xFF00_0000 | UInt32(red * 51) << 16 | UInt32((green * 255 + 3) / 6) << 8 | UInt32(blue * 51) : 0
            }
        }
        let stride = Int(frame.pointer.pointee.linesize.0)
        picture.rgb.withUnsafeBufferPointer { rgb in
            for y in 0..<picture.height {
                for x in 0..<picture.width {
                    let threshold = bayer[(y % 4) * 4 + x % 4]
                    let pixel = (y * picture.width + x) * 3
                    func level(_ value: UInt8, _ count: Int) -> Int {
                        min(count - 1, Int(Double(value) * Double(count - 1) / 255 + threshold))
                    }
                    let red = level(rgb[pixel], levels.red)
                    let green = level(rgb[pixel + 1], levels.green)
                    let blue = level(rgb[pixel + 2], levels.blue)
                    indices[y * stride + x] = UInt8(red * 42 + green * 6 + blue)
                }
            }
        }
        return frame
    }
}
