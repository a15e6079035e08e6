import CFFmpeg

/// Turns a decoded still upright in its own pixel format, before any conversion, as FFmpeg's
/// transpose and flip filters do on a decoded frame: samples are moved, never recomputed, so a
/// photo stored sideways (EXIF Orientation 6 or 8), upside down (3) or mirrored (2, 4, 5, 7)
/// then takes exactly the path of a photo stored upright. Turning it after the conversion to the working format would
/// subsample its chroma along the wrong axis (a 4:4:4 JPEG lost detail the upright one keeps).
enum StillRotation {
    /// `frame` mirrored left to right if `mirrored`, then turned `degrees` (0, 90, 180 or 270)
    /// clockwise; nil for a format whose samples are not whole bytes in planes (bitstream,
    /// palette, hardware): the caller turns it later. Writes into `previous` where it has the
    /// turned size and format (a video's pictures, one after another).
    static func rotated(
        _ frame: UnsafeMutablePointer<AVFrame>, clockwise degrees: Int, mirrored: Bool = false,
        reusing previous: Frame? = nil
    ) -> Frame? {
        let format = AVPixelFormat(frame.pointee.format)
        guard let descriptor = av_pix_fmt_desc_get(format), let target = turnedFormat(format, degrees: degrees)
        else { return nil }
        let unsupported = UInt64(AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL)
        guard descriptor.pointee.flags & unsupported == 0 else { return nil }
        let quarter = degrees % 180 != 0
        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        let size = (width: Int32(quarter ? height : width), height: Int32(quarter ? width : height))
        let turned: Frame
        if let previous, previous.pointer.pointee.format == target.rawValue,
            previous.pointer.pointee.width == size.width,
            previous.pointer.pointee.height == size.height, av_frame_is_writable(previous.pointer) != 0
        {
            turned = previous
        } else {
            turned = Frame()
            turned.pointer.pointee.format = target.rawValue
            turned.pointer.pointee.width = size.width
            turned.pointer.pointee.height = size.height
            guard av_frame_get_buffer(turned.pointer, 0) >= 0 else { return nil }
        }
        turned.pointer.pointee.color_range = frame.pointee.color_range
        turned.pointer.pointee.colorspace = frame.pointee.colorspace
        let chromaWidth = Int(descriptor.pointee.log2_chroma_w)
        let chromaHeight = Int(descriptor.pointee.log2_chroma_h)
        let planes = Int(av_pix_fmt_count_planes(format))
        withUnsafeBytes(of: frame.pointee.data) { sourceData in
            withUnsafeBytes(of: turned.pointer.pointee.data) { targetData in
                let sources = sourceData.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)
                let targets = targetData.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)
                let sourceStrides = withUnsafeBytes(of: frame.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
                let targetStrides = withUnsafeBytes(of: turned.pointer.pointee.linesize) {
                    Array($0.bindMemory(to: Int32.self))
                }
                for plane in 0..<planes {
                    guard let source = sources[plane], let target = targets[plane] else { continue }
                    // Planes 1 and 2 of a YUV format are the subsampled chroma.
                    let isChroma =
                        (plane == 1 || plane == 2) && descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0
                    let planeWidth = isChroma ? -((-width) >> chromaWidth) : width
                    let planeHeight = isChroma ? -((-height) >> chromaHeight) : height
                    let step = pixelBytes(descriptor, plane: plane)
                    turn(
                        source, stride: Int(sourceStrides[plane]), width: planeWidth, height: planeHeight, step: step,
                        into: target, stride: Int(targetStrides[plane]), clockwise: degrees, mirrored: mirrored)
                }
            }
        }
        return turned
    }

    /// The format a turned picture is in: the same, unless a quarter turn swaps unequal
    /// horizontal and vertical chroma subsampling: 4:2:2 becomes 4:4:0 (JPEG's full-range
    /// variants stay full-range). Nil for other such formats (4:1:1), turned after conversion.
    private static func turnedFormat(_ format: AVPixelFormat, degrees: Int) -> AVPixelFormat? {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return nil }
        if degrees % 180 == 0 || descriptor.pointee.log2_chroma_w == descriptor.pointee.log2_chroma_h { return format }
        let swapped: [(AVPixelFormat, AVPixelFormat)] = [
            (AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ440P), (AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV440P),
        ]
        for (a, b) in swapped {
            if format == a { return b }
            if format == b { return a }
        }
        return nil
    }

    /// Bytes from one pixel to the next in `plane`: 1 for 8-bit planar, 3 for RGB24, 2 for 16-bit.
    private static func pixelBytes(_ descriptor: UnsafePointer<AVPixFmtDescriptor>, plane: Int) -> Int {
        withUnsafeBytes(of: descriptor.pointee.comp) { raw in
            let components = raw.bindMemory(to: AVComponentDescriptor.self)
            return (0..<Int(descriptor.pointee.nb_components)).filter { Int(components[$0].plane) == plane }
                .map { Int(components[$0].step) }.max() ?? 1
        }
    }

    /// Moves every pixel (`step` bytes) of a `width` × `height` plane to its turned place.
    private static func turn(
        _ source: UnsafeMutablePointer<UInt8>, stride sourceStride: Int, width: Int, height: Int, step: Int,
        into target: UnsafeMutablePointer<UInt8>, stride targetStride: Int, clockwise degrees: Int, mirrored: Bool
    ) {
        for y in 0..<height {
            for sourceX in 0..<width {
                // Mirroring first moves the column; the turn then moves the mirrored pixel.
                let x = mirrored ? width - 1 - sourceX : sourceX
                let (tx, ty): (Int, Int)
                switch degrees {
                case 0: (tx, ty) = (x, y)
                case 90: (tx, ty) = (height - 1 - y, x)
                case 180: (tx, ty) = (width - 1 - x, height - 1 - y)
                default: (tx, ty) = (y, width - 1 - x)
                }
                (target + ty * targetStride + tx * step).update(
                    from: source + y * sourceStride + sourceX * step, count: step)
            }
        }
    }
}
