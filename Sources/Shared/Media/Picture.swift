import CFFmpeg
import FarmCore

/// A planar YUV 4:2:0 picture (with an optional full-resolution alpha plane) in memory this
/// object owns. The compositor's working format: what the encoders take, so composited frames
/// go to the encoder without a colour conversion.
///
/// Two depths: 8-bit limited-range BT.709 (the SDR canvas, one byte a sample) and 10-bit
/// limited-range BT.2020 (the HDR canvas, one 16-bit word a sample, as FFmpeg's `yuv420p10le`).
/// The alpha plane has the picture's depth too, so libswscale fills it like any other plane.
public final class Picture {
    public let width: Int
    public let height: Int
    public let hasAlpha: Bool
    /// 8 or 10 bits a sample.
    public let depth: Int
    /// Y, U, V and (when `hasAlpha`) A plane pointers, as sws_scale wants them.
    let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    /// Bytes from one row to the next, per plane.
    let strides: UnsafeMutablePointer<Int32>

    public init(width: Int, height: Int, hasAlpha: Bool = false, depth: Int = 8) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "Picture needs even sizes")
        precondition(depth == 8 || depth == 10, "Picture is 8 or 10 bits")
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.depth = depth
        planes = .allocate(capacity: 4)
        strides = .allocate(capacity: 4)
        let bytes = depth == 8 ? 1 : 2
        // Rows are padded to 64 bytes so SIMD code in swscale may read whole vectors.
        let lumaStride = (width * bytes + 63) & ~63
        let chromaStride = (width / 2 * bytes + 63) & ~63
        let sizes = [
            (lumaStride, height), (chromaStride, height / 2), (chromaStride, height / 2), (lumaStride, height),
        ]
        for (index, (stride, rows)) in sizes.enumerated() {
            if index == 3 && !hasAlpha {
                planes[3] = nil
                strides[3] = 0
                continue
            }
            let plane = UnsafeMutableRawPointer.allocate(byteCount: stride * rows + 64, alignment: 64)
            plane.initializeMemory(as: UInt8.self, repeating: 0, count: stride * rows + 64)
            planes[index] = plane.assumingMemoryBound(to: UInt8.self)
            strides[index] = Int32(stride)
        }
    }

    /// A picture of this one's size, alpha and depth.
    public func sameShape() -> Picture { Picture(width: width, height: height, hasAlpha: hasAlpha, depth: depth) }

    deinit {
        for index in 0..<4 { planes[index].map { UnsafeMutableRawPointer($0).deallocate() } }
        planes.deallocate()
        strides.deallocate()
    }

    var pixelFormat: AVPixelFormat {
        switch (depth, hasAlpha) {
        case (8, false): AV_PIX_FMT_YUV420P
        case (8, true): AV_PIX_FMT_YUVA420P
        case (_, false): AV_PIX_FMT_YUV420P10LE
        case (_, true): AV_PIX_FMT_YUVA420P10LE
        }
    }

    /// The planes from pixel (x, y) on, as samples of the picture's depth; x and y must be even.
    package func view<Sample: PlaneSample>(x: Int = 0, y: Int = 0, as _: Sample.Type = Sample.self) -> PlaneSet<Sample>
    {
        precondition(Sample.depth == depth, "a \(depth)-bit picture read as \(Sample.depth)-bit samples")
        func plane(_ index: Int, _ column: Int, _ row: Int) -> UnsafeMutablePointer<Sample> {
            UnsafeMutableRawPointer(planes[index]!).advanced(by: row * Int(strides[index]))
                .assumingMemoryBound(to: Sample.self) + column
        }
        return PlaneSet(
            y: plane(0, x, y), u: plane(1, x / 2, y / 2), v: plane(2, x / 2, y / 2),
            a: planes[3] == nil ? nil : plane(3, x, y),
            lumaStride: Int(strides[0]) / MemoryLayout<Sample>.size,
            chromaStride: Int(strides[1]) / MemoryLayout<Sample>.size,
            alphaStride: Int(strides[3]) / MemoryLayout<Sample>.size)
    }

    /// Runs `body` with the picture's planes at its depth: the one place the two depths part.
    func withView<Result>(x: Int = 0, y: Int = 0, _ body: (AnyPlaneSet) -> Result) -> Result {
        depth == 8 ? body(.eight(view(x: x, y: y))) : body(.ten(view(x: x, y: y)))
    }

    /// Copies every plane into `target`, a picture of the same shape.
    public func copy(to target: Picture) {
        precondition(
            target.width == width && target.height == height && target.hasAlpha == hasAlpha && target.depth == depth)
        for index in 0..<(hasAlpha ? 4 : 3) {
            let rows = index == 1 || index == 2 ? height / 2 : height
            UnsafeMutableRawPointer(target.planes[index]!).copyMemory(
                from: planes[index]!, byteCount: Int(strides[index]) * rows)
        }
    }

    /// Fills the whole picture with one colour (and opaque alpha when it has an alpha plane).
    public func fill(_ color: SampleColor) {
        withView { planes in
            switch planes {
            case .eight(let view): view.fill(width: width, height: height, color: color, alpha: 255, opaque: true)
            case .ten(let view): view.fill(width: width, height: height, color: color, alpha: 255, opaque: true)
            }
        }
    }

    /// Fills the whole picture with an 8-bit BT.709 colour; for 8-bit pictures.
    public func fill(_ color: YUVColor) { fill(SampleColor(color)) }
}

/// A colour as sample values of a picture's depth: 16–235 for 8 bits, 64–940 for 10.
public struct SampleColor: Sendable, Hashable {
    public var y: UInt16
    public var u: UInt16
    public var v: UInt16

    public init(y: UInt16, u: UInt16, v: UInt16) {
        self.y = y
        self.u = u
        self.v = v
    }

    public init(_ color: YUVColor) {
        self.init(y: UInt16(color.y), u: UInt16(color.u), v: UInt16(color.v))
    }
}

/// A colour in 8-bit limited-range BT.709 YUV, the SDR output's colour space.
public struct YUVColor: Sendable, Hashable {
    public var y: UInt8
    public var u: UInt8
    public var v: UInt8

    public init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    public init(_ rgb: RGBColor) {
        let (r, g, b) = (Double(rgb.red) / 255, Double(rgb.green) / 255, Double(rgb.blue) / 255)
        let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
        func clamp(_ value: Double) -> UInt8 { UInt8(Swift.max(0, Swift.min(255, value.rounded()))) }
        y = clamp(16 + 219 * luma)
        u = clamp(128 + 224 * (b - luma) / 1.8556)
        v = clamp(128 + 224 * (r - luma) / 1.5748)
    }

    public static let black = YUVColor(y: 16, u: 128, v: 128)
}
