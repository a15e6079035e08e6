import CFFmpeg
import FarmCore

/// Grades pictures in place: the picture's YUV converted to planar RGB by libswscale (the same
/// flags as every other conversion; full-range RGB by the canvas's matrix, chroma interpolated
/// to every pixel), each pixel graded (`GradeProgram`), and converted back. Alpha is untouched.
///
/// The conversions are what ffmpeg's `scale=flags=bicubic+accurate_rnd+bitexact:
/// in_color_matrix=bt709:out_color_matrix=bt709:in_range=tv:out_range=pc,format=gbrp` and the
/// reverse (`in_range=pc:out_range=tv,format=yuv420p`) do, so a graph with `lut3d` between them
/// is an oracle for a grade.
///
/// Keeps its conversion contexts and RGB buffer between calls; one grader per thread.
public final class PictureGrader {
    private var toRGB: OpaquePointer?
    private var toYUV: OpaquePointer?
    private var rgb: Frame?
    private let planes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 4)
    private let strides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)

    public init() {}

    deinit {
        sws_freeContext(toRGB)
        sws_freeContext(toYUV)
        planes.deallocate()
        strides.deallocate()
    }

    /// Grades `picture` in place by `program` (made for the picture's depth).
    public func grade(_ picture: Picture, by program: GradeProgram) throws {
        precondition(program.depth == picture.depth, "a \(program.depth)-bit grade on a \(picture.depth)-bit picture")
        let (width, height) = (Int32(picture.width), Int32(picture.height))
        let yuv = picture.depth == 8 ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUV420P10LE
        let frame = try rgbFrame(width: width, height: height, depth: picture.depth)
        let gbr = AVPixelFormat(frame.pointer.pointee.format)
        let matrix = sws_getCoefficients(picture.depth == 8 ? SWS_CS_ITU709 : SWS_CS_BT2020)
        toRGB = sws_getCachedContext(toRGB, width, height, yuv, width, height, gbr, Scaler.flags, nil, nil, nil)
        toYUV = sws_getCachedContext(toYUV, width, height, gbr, width, height, yuv, Scaler.flags, nil, nil, nil)
        guard let toRGB, let toYUV else { throw FFmpegError(operation: "grade", message: "no RGB conversion") }
        sws_setColorspaceDetails(toRGB, matrix, 0, matrix, 1, 0, 1 << 16, 1 << 16)
        sws_setColorspaceDetails(toYUV, matrix, 1, matrix, 0, 0, 1 << 16, 1 << 16)
        let data = frame.pointer.pointee.data
        let lines = frame.pointer.pointee.linesize
        let rgbPlanes = [data.0, data.1, data.2]
        let rgbStrides = [lines.0, lines.1, lines.2]
        for index in 0..<3 {
            planes[index] = UnsafePointer(picture.planes[index])
            strides[index] = picture.strides[index]
        }
        (planes[3], strides[3]) = (nil, 0)
        var rows = withUnsafeMutablePointer(to: &frame.pointer.pointee.data) { data in
            withUnsafeMutablePointer(to: &frame.pointer.pointee.linesize) { lines in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { targetPlanes in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { targetStrides in
                        sws_scale(toRGB, planes, strides, 0, height, targetPlanes, targetStrides)
                    }
                }
            }
        }
        if rows <= 0 { throw FFmpegError(code: rows, operation: "grade to RGB") }
        // GBR planes: 0 green, 1 blue, 2 red.
        for y in 0..<Int(height) {
            func row<Sample>(_ plane: Int, _ type: Sample.Type) -> UnsafeMutablePointer<Sample> {
                UnsafeMutableRawPointer(rgbPlanes[plane]!).advanced(by: y * Int(rgbStrides[plane]))
                    .assumingMemoryBound(to: Sample.self)
            }
            if picture.depth == 8 {
                program.apply(
                    red: row(2, UInt8.self), green: row(0, UInt8.self), blue: row(1, UInt8.self), count: Int(width))
            } else {
                program.apply(
                    red: row(2, UInt16.self), green: row(0, UInt16.self), blue: row(1, UInt16.self), count: Int(width))
            }
        }
        for index in 0..<3 {
            planes[index] = UnsafePointer(rgbPlanes[index])
            strides[index] = rgbStrides[index]
        }
        rows = sws_scale(toYUV, planes, strides, 0, height, picture.planes, picture.strides)
        if rows <= 0 { throw FFmpegError(code: rows, operation: "grade to YUV") }
    }

    private func rgbFrame(width: Int32, height: Int32, depth: Int) throws -> Frame {
        let format = depth == 8 ? AV_PIX_FMT_GBRP : AV_PIX_FMT_GBRP10LE
        if let rgb, rgb.pointer.pointee.width == width, rgb.pointer.pointee.height == height,
            rgb.pointer.pointee.format == format.rawValue
        {
            return rgb
        }
        let frame = Frame()
        frame.pointer.pointee.format = format.rawValue
        frame.pointer.pointee.width = width
        frame.pointer.pointee.height = height
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 64), "grade buffer")
        rgb = frame
        return frame
    }
}
