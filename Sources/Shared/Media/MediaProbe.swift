import CFFmpeg
import FarmCore
import Foundation

/// Opens media files and checks that they really decode.
public enum MediaProbe {
    /// Reads the file's streams and decodes its first picture and first sound, so a truncated or
    /// corrupt file is caught before any rendering starts.
    public static func probe(path: String) throws -> MediaInfo {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FFmpegError(operation: path, message: "file not found")
        }
        // In blocks, as workers read pinned media: a probe of a camera original fetches the
        // blocks its demuxer asks for, not the kernel's read-ahead beyond them.
        let reads = MediaReads(probing: path)
        let io = try PinnedIO.open(path, reads: reads)
        var context: UnsafeMutablePointer<AVFormatContext>? = try MediaInput.openFormat(
            path: path, io: io, failure: "cannot read")
        defer { withExtendedLifetime(io) { avformat_close_input(&context) } }
        guard let format = context else { throw FFmpegError(operation: path, message: "cannot read") }
        try FFmpegError.check(avformat_find_stream_info(format, nil), "cannot read streams of \(path)")
        let formatName = String(cString: format.pointee.iformat.pointee.name)
        let videoIndex = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let audioIndex = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        if videoIndex < 0 && audioIndex < 0 {
            throw FFmpegError(operation: path, message: "no video or audio stream")
        }
        var info = MediaInfo(
            kind: .audio, duration: nil, width: 0, height: 0, rotation: 0, hasAudio: audioIndex >= 0, hasAlpha: false,
            frameRate: nil)
        if videoIndex >= 0 {
            let stream = format.pointee.streams[Int(videoIndex)]!
            let isImage = formatName.hasPrefix("image2") || formatName.hasSuffix("_pipe")
            // Cover art attached to a music file is a picture, not the file's video.
            let isCoverArt = (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
            if !isCoverArt {
                info.kind = isImage ? .still : .video
                info.width = Int(stream.pointee.codecpar.pointee.width)
                info.height = Int(stream.pointee.codecpar.pointee.height)
                info.rotation = rotation(of: stream)
                let rate =
                    stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
                if rate.num > 0 && rate.den > 0 { info.frameRate = Rational(Int64(rate.num), Int64(rate.den)) }
                if let descriptor = av_pix_fmt_desc_get(AVPixelFormat(stream.pointee.codecpar.pointee.format)) {
                    info.hasAlpha = (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA)) != 0
                }
            }
        }
        if info.kind != .still {
            info.duration = duration(of: format, streamIndex: info.kind == .video ? videoIndex : audioIndex)
        }
        let orientation = try checkDecodes(path: path, info: info, reads: reads)
        // A still's EXIF orientation is the photo's own rotation (a portrait phone picture is
        // stored sideways with Orientation 6); players show it upright, so must we.
        if info.kind == .still, let orientation { info.rotation = orientation }
        return info
    }

    private static func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = cffmpeg_display_matrix(stream) else { return 0 }
        return rotation(matrix: matrix)
    }

    /// The clockwise quarter turns a display matrix asks for, in degrees.
    private static func rotation(matrix: UnsafePointer<Int32>) -> Int {
        let degrees = av_display_rotation_get(matrix)
        guard degrees.isFinite else { return 0 }
        // The display matrix angle is counter-clockwise; players rotate clockwise by its negation.
        let clockwise = Int((-degrees).rounded())
        return ((clockwise % 360) + 360) % 360 / 90 * 90
    }

    private static func duration(of format: UnsafeMutablePointer<AVFormatContext>, streamIndex: Int32) -> Rational? {
        let stream = format.pointee.streams[Int(streamIndex)]!
        if stream.pointee.duration > 0 {
            let base = stream.pointee.time_base
            return Rational(stream.pointee.duration) * Rational(Int64(base.num), Int64(base.den))
        }
        if format.pointee.duration > 0 {
            return Rational(format.pointee.duration, Int64(AV_TIME_BASE))
        }
        return nil
    }

    /// Decodes the first picture and sound; returns the picture's EXIF orientation as a
    /// rotation, if it has one.
    private static func checkDecodes(path: String, info: MediaInfo, reads: MediaReads?) throws -> Int? {
        let frame = Frame()
        var orientation: Int?
        if info.kind != .audio {
            let input = try MediaInput(path: path, stream: .video, reads: reads)
            guard try input.decodeNext(into: frame) else {
                throw FFmpegError(operation: path, message: "no picture could be decoded")
            }
            // The decoder turns a still's EXIF orientation into a display matrix on its frame.
            if let side = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_DISPLAYMATRIX) {
                orientation = rotation(matrix: UnsafeRawPointer(side.pointee.data).assumingMemoryBound(to: Int32.self))
            }
        }
        if info.hasAudio {
            let input = try MediaInput(path: path, stream: .audio, reads: reads)
            guard try input.decodeNext(into: frame) else {
                throw FFmpegError(operation: path, message: "no sound could be decoded")
            }
        }
        return orientation
    }
}
