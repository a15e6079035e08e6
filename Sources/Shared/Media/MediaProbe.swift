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
            let isImage = isImageFormat(formatName)
            // Cover art attached to a music file is a picture, not the file's video.
            let isCoverArt = (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
            if !isCoverArt {
                info.kind = isImage ? .still : .video
                info.width = Int(stream.pointee.codecpar.pointee.width)
                info.height = Int(stream.pointee.codecpar.pointee.height)
                info.rotation = rotation(of: stream)
                let aspect = av_guess_sample_aspect_ratio(format, stream, nil)
                if aspect.num > 0 && aspect.den > 0 {
                    let sampleAspect = Rational(Int64(aspect.num), Int64(aspect.den))
                    // A quarter turn makes a wide pixel a tall one.
                    info.pixelAspect = info.rotation % 180 == 0 ? sampleAspect : Rational(1) / sampleAspect
                }
                let rate =
                    stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
                if rate.num > 0 && rate.den > 0 { info.frameRate = Rational(Int64(rate.num), Int64(rate.den)) }
                let parameters = stream.pointee.codecpar.pointee
                if let descriptor = av_pix_fmt_desc_get(AVPixelFormat(parameters.format)) {
                    info.hasAlpha = (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA)) != 0
                    info.bitDepth = Int(descriptor.pointee.comp.0.depth)
                }
                if parameters.color_trc != AVCOL_TRC_UNSPECIFIED {
                    info.transfer = av_color_transfer_name(parameters.color_trc).map { String(cString: $0) }
                }
                if parameters.color_primaries != AVCOL_PRI_UNSPECIFIED {
                    info.primaries = av_color_primaries_name(parameters.color_primaries).map { String(cString: $0) }
                }
                info.interlaced = [AV_FIELD_TT, AV_FIELD_BB, AV_FIELD_TB, AV_FIELD_BT].contains(parameters.field_order)
            }
        }
        if audioIndex >= 0 {
            info.channels = Int(format.pointee.streams[Int(audioIndex)]!.pointee.codecpar.pointee.ch_layout.nb_channels)
        }
        if info.kind != .still {
            info.duration = duration(of: format, streamIndex: info.kind == .video ? videoIndex : audioIndex)
        }
        // An animated image format holding one picture (a logo saved as GIF) is a still.
        let mayBeStill = info.kind == .video && ["gif", "apng", "webp_pipe"].contains(formatName)
        let first = try checkDecodes(path: path, info: info, countingTo: mayBeStill ? 2 : 1, reads: reads)
        if mayBeStill && first.pictures == 1 {
            info.kind = .still
            info.duration = nil
        }
        // A still's EXIF orientation is the photo's own turn (a portrait phone picture is
        // stored sideways with Orientation 6); players show it upright, so must we.
        if info.kind == .still, let orientation = first.orientation {
            (info.rotation, info.mirrored) = orientation
        }
        return info
    }

    private static func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = cffmpeg_display_matrix(stream) else { return 0 }
        return rotation(matrix: matrix)
    }

    /// The clockwise quarter turns a display matrix asks for, in degrees.
    static func rotation(matrix: UnsafePointer<Int32>) -> Int {
        let degrees = av_display_rotation_get(matrix)
        guard degrees.isFinite else { return 0 }
        // The display matrix angle is counter-clockwise; players rotate clockwise by its negation.
        let clockwise = Int((-degrees).rounded())
        return ((clockwise % 360) + 360) % 360 / 90 * 90
    }

    /// How long the stream plays on the container's timeline: to its end from the container's
    /// start (media time 0), so a stream that starts late keeps its offset.
    private static func duration(of format: UnsafeMutablePointer<AVFormatContext>, streamIndex: Int32) -> Rational? {
        let stream = format.pointee.streams[Int(streamIndex)]!
        let containerStart = format.pointee.start_time == cffmpeg_nopts() ? 0 : format.pointee.start_time
        if stream.pointee.duration > 0 {
            let base = Rational(stream.pointee.time_base)
            let start = stream.pointee.start_time == cffmpeg_nopts() ? 0 : stream.pointee.start_time
            let end = Rational(start + stream.pointee.duration) * base
            return end - Rational(containerStart, Int64(AV_TIME_BASE))
        }
        if format.pointee.duration > 0 {
            return Rational(format.pointee.duration, Int64(AV_TIME_BASE))
        }
        return nil
    }

    /// Whether the demuxer `name` reads pictures (image2, png_pipe, ...): its video is a still.
    static func isImageFormat(_ name: String) -> Bool { name.hasPrefix("image2") || name.hasSuffix("_pipe") }

    /// Decodes the first picture and sound; says how many pictures were decoded (up to
    /// `countingTo`) and the first one's orientation, if its decoder found one (EXIF).
    private static func checkDecodes(path: String, info: MediaInfo, countingTo wanted: Int, reads: MediaReads?)
        throws -> (pictures: Int, orientation: (rotation: Int, mirrored: Bool)?)
    {
        let frame = Frame()
        var orientation: (Int, Bool)?
        var pictures = 0
        if info.kind != .audio {
            let input = try MediaInput(path: path, stream: .video, reads: reads)
            guard try input.decodeNext(into: frame) else {
                throw FFmpegError(operation: path, message: "no picture could be decoded")
            }
            pictures = 1
            // The decoder turns a still's EXIF orientation into a display matrix on its frame.
            if let side = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_DISPLAYMATRIX) {
                orientation = Self.orientation(
                    matrix: UnsafeRawPointer(side.pointee.data).assumingMemoryBound(to: Int32.self))
            }
            while pictures < wanted, try input.decodeNext(into: frame) { pictures += 1 }
        }
        if info.hasAudio {
            let input = try MediaInput(path: path, stream: .audio, reads: reads)
            guard try input.decodeNext(into: frame) else {
                throw FFmpegError(operation: path, message: "no sound could be decoded")
            }
        }
        return (pictures, orientation)
    }

    /// A display matrix as a mirror (left to right, applied first) and a clockwise turn. A
    /// mirrored matrix has a negative determinant; with its first column negated, it is the
    /// turn alone, done before the mirror, which is the opposite turn done after it.
    private static func orientation(matrix: UnsafePointer<Int32>) -> (rotation: Int, mirrored: Bool) {
        let determinant = Int64(matrix[0]) * Int64(matrix[4]) - Int64(matrix[1]) * Int64(matrix[3])
        guard determinant < 0 else { return (rotation(matrix: matrix), false) }
        var unmirrored = (0..<9).map { matrix[$0] }
        unmirrored[0] = -unmirrored[0]
        unmirrored[3] = -unmirrored[3]
        unmirrored[6] = -unmirrored[6]
        let turnFirst = unmirrored.withUnsafeBufferPointer { rotation(matrix: $0.baseAddress!) }
        return ((360 - turnFirst) % 360, true)
    }
}
