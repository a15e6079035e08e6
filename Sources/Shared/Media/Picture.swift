import CFFmpeg
import FarmCore

/// A planar 8-bit YUV 4:2:0 picture (with an optional full-resolution alpha plane) in memory this
/// object owns. The compositor's working format: what H.264/HEVC encoders take, so composited
/// frames go to the encoder without a colour conversion.
public final class Picture {
    public let width: Int
    public let height: Int
    public let hasAlpha: Bool
    /// Y, U, V and (when `hasAlpha`) A plane pointers, as sws_scale wants them.
    let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    let strides: UnsafeMutablePointer<Int32>

    public init(width: Int, height: Int, hasAlpha: Bool = false) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "Picture needs even sizes")
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        planes = .allocate(capacity: 4)
        strides = .allocate(capacity: 4)
        // Rows are padded to 64 bytes so SIMD code in swscale may read whole vectors.
        let lumaStride = (width + 63) & ~63
        let chromaStride = (width / 2 + 63) & ~63
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

    deinit {
        for index in 0..<4 { planes[index].map { UnsafeMutableRawPointer($0).deallocate() } }
        planes.deallocate()
        strides.deallocate()
    }

    var pixelFormat: AVPixelFormat { hasAlpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P }

    /// The planes from pixel (x, y) on; x and y must be even.
    func view(x: Int = 0, y: Int = 0) -> PlaneSet {
        PlaneSet(
            y: planes[0]! + y * Int(strides[0]) + x,
            u: planes[1]! + y / 2 * Int(strides[1]) + x / 2,
            v: planes[2]! + y / 2 * Int(strides[2]) + x / 2,
            a: planes[3].map { $0 + y * Int(strides[3]) + x },
            lumaStride: Int(strides[0]), chromaStride: Int(strides[1]), alphaStride: Int(strides[3]))
    }

    /// Copies every plane into `target`, a picture of the same size and planes.
    public func copy(to target: Picture) {
        precondition(target.width == width && target.height == height && target.hasAlpha == hasAlpha)
        Blend.copy(view(), to: target.view(), width: width, height: height)
        if let alpha = planes[3], let targetAlpha = target.planes[3] {
            targetAlpha.update(from: alpha, count: Int(strides[3]) * height)
        }
    }

    /// Fills the whole picture with one colour (and alpha 255 when it has an alpha plane).
    public func fill(_ color: YUVColor) {
        view().fill(width: width, height: height, color: color, alpha: 255)
        if let alpha = planes[3] { alpha.update(repeating: 255, count: Int(strides[3]) * height) }
    }
}

/// A colour in 8-bit limited-range BT.709 YUV, the encoded output's colour space.
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
