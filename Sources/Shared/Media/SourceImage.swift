import CFFmpeg

/// A decoded picture in any pixel format, borrowed from a decoder's frame or a `Picture` for
/// the duration of one compositing step: the next decode or draw may overwrite it.
public struct SourceImage {
    public var width: Int
    public var height: Int
    var format: AVPixelFormat
    var data:
        (
            UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?,
            UnsafeMutablePointer<UInt8>?
        )
    var strides: (Int32, Int32, Int32, Int32)
    /// The matrix its YUV was made with; BT.709 (the output's) when the source does not say.
    var matrix: AVColorSpace = AVCOL_SPC_BT709
    /// Tagged full range ("JPEG" range) by its decoder, whatever its pixel format's name.
    var taggedFullRange = false

    init(frame: UnsafeMutablePointer<AVFrame>) {
        width = Int(frame.pointee.width)
        height = Int(frame.pointee.height)
        format = AVPixelFormat(frame.pointee.format)
        data = (frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2, frame.pointee.data.3)
        strides = (
            frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, frame.pointee.linesize.3
        )
        if frame.pointee.colorspace != AVCOL_SPC_UNSPECIFIED { matrix = frame.pointee.colorspace }
        taggedFullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
    }

    public init(picture: Picture) {
        width = picture.width
        height = picture.height
        format = picture.pixelFormat
        data = (picture.planes[0], picture.planes[1], picture.planes[2], picture.planes[3])
        strides = (picture.strides[0], picture.strides[1], picture.strides[2], picture.strides[3])
        if picture.depth == 10 { matrix = AVCOL_SPC_BT2020_NCL }
    }

    public var hasAlpha: Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }

    /// Full-range ("JPEG") YUV or RGB input needs its range converted on the way in.
    var isFullRange: Bool {
        if taggedFullRange { return true }
        switch format {
        case AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P: return true
        default:
            guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
            return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        }
    }

    /// Already in the working format of a canvas of `depth` bits: 8-bit YUV 4:2:0 made with
    /// BT.709, or 10-bit made with BT.2020, in limited range, with or without alpha. It can then
    /// be drawn as it is, without going through swscale.
    public func isWorkingFormat(depth: Int) -> Bool {
        guard !taggedFullRange else { return false }
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVA420P: return depth == 8 && Self.swsMatrix(matrix) == SWS_CS_ITU709
        case AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUVA420P10LE:
            return depth == 10 && Self.swsMatrix(matrix) == SWS_CS_BT2020
        default: return false
        }
    }

    /// libswscale's name for a matrix.
    static func swsMatrix(_ matrix: AVColorSpace) -> Int32 {
        switch matrix {
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        default: return SWS_CS_ITU709
        }
    }

    /// The planes of this image from (x, y), when it already is in the working format of the
    /// samples' depth: then it can be blended without going through swscale.
    func directPlanes<Sample: PlaneSample>(x: Int, y: Int) -> PlaneSet<Sample>? {
        guard isWorkingFormat(depth: Sample.depth),
            let lumaPlane = data.0, let uPlane = data.1, let vPlane = data.2
        else { return nil }
        func plane(_ base: UnsafeMutablePointer<UInt8>, _ stride: Int32, _ column: Int, _ row: Int)
            -> UnsafeMutablePointer<Sample>
        {
            UnsafeMutableRawPointer(base + row * Int(stride)).assumingMemoryBound(to: Sample.self) + column
        }
        let size = MemoryLayout<Sample>.size
        return PlaneSet(
            y: plane(lumaPlane, strides.0, x, y),
            u: plane(uPlane, strides.1, x / 2, y / 2),
            v: plane(vPlane, strides.2, x / 2, y / 2),
            a: hasAlpha ? data.3.map { plane($0, strides.3, x, y) } : nil,
            lumaStride: Int(strides.0) / size, chromaStride: Int(strides.1) / size, alphaStride: Int(strides.3) / size)
    }
}
