import CFFmpeg
import FarmCore
import Foundation

/// Turns high-dynamic-range pictures (PQ, as HDR10 is; HLG, as phones record) into the
/// canvas's SDR BT.709, the way ffmpeg's `zscale` and `tonemap` graph does:
/// to linear light with 100 nits as 1.0 (`zscale=t=linear:npl=100`), from BT.2020 to BT.709
/// primaries (`zscale=p=bt709`), Hable's curve on the brightest component with a peak of
/// 1000 nits (`tonemap=hable:desat=0:peak=10`), clipped to the BT.709 gamut, then encoded
/// for a BT.1886 display (`zscale=t=bt709`, gamma 2.4) and the BT.709 matrix.
///
/// Keeps its buffers between calls; the returned picture is overwritten by the next call.
public final class ToneMapper {
    public enum Transfer: Sendable {
        case pq, hlg
    }

    /// 1000 nits, in units of the 100-nit SDR white.
    static let peak: Float = 10
    private let transfer: Transfer
    private var toRGB: OpaquePointer?
    private var rgb: Frame?
    private let scaler = Scaler()
    private var output: Picture?
    private let sourcePlanes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 4)
    private let sourceStrides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)
    /// Linear light of each 16-bit code value, and the encoding of each 16-bit step of linear
    /// light in [0, 1].
    private let linear: [Float]
    private let gamma: [UInt16]

    public init(transfer: Transfer) {
        self.transfer = transfer
        linear = (0..<65536).map { Self.toLinear(Float($0) / 65535, transfer: transfer) }
        gamma = (0..<65536).map { code in
            let light = Float(code) / 65535
            // Encoded for a BT.1886 display (gamma 2.4), as zimg encodes display light.
            return UInt16((min(max(powf(light, 1 / 2.4), 0), 1) * 65535).rounded())
        }
    }

    deinit {
        sws_freeContext(toRGB)
        sourcePlanes.deallocate()
        sourceStrides.deallocate()
    }

    /// ffprobe's name of a transfer the farm tone-maps, or nil for SDR.
    public static func transfer(named name: String?) -> Transfer? {
        switch name {
        case "smpte2084": return .pq
        case "arib-std-b67": return .hlg
        default: return nil
        }
    }

    /// One code value's light, 1.0 being 100 nits.
    static func toLinear(_ value: Float, transfer: Transfer) -> Float {
        switch transfer {
        case .pq:
            let m1: Float = 0.1593017578125
            let m2: Float = 78.84375
            let c1: Float = 0.8359375
            let c2: Float = 18.8515625
            let c3: Float = 18.6875
            let p = powf(value, 1 / m2)
            return 100 * powf(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
        case .hlg:
            // The inverse OETF gives scene light in [0, 1]; the OOTF (gamma 1.2 for a
            // 1000-nit display) is applied per pixel in `map`.
            let a: Float = 0.17883277
            let b: Float = 0.28466892
            let c: Float = 0.55991073
            return value <= 0.5 ? value * value / 3 : (expf((value - c) / a) + b) / 12
        }
    }

    static func hable(_ x: Float) -> Float {
        let a: Float = 0.15
        let b: Float = 0.50
        let c: Float = 0.10
        let d: Float = 0.20
        let e: Float = 0.02
        let f: Float = 0.30
        return (x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f) - e / f
    }

    /// `image` (any YUV, BT.2020) tone-mapped to an 8-bit BT.709 picture of its size (even).
    public func picture(from image: SourceImage) throws -> Picture {
        let width = Swift.max(2, image.width & ~1)
        let height = Swift.max(2, image.height & ~1)
        let frame = try rgbFrame(width: width, height: height)
        let context = sws_getCachedContext(
            toRGB, Int32(width), Int32(height), image.format, Int32(width), Int32(height), AV_PIX_FMT_RGB48LE,
            Scaler.flags, nil, nil, nil)
        guard let context else { throw FFmpegError(operation: "tone map", message: "unsupported picture format") }
        toRGB = context
        sws_setColorspaceDetails(
            context, sws_getCoefficients(SourceImage.swsMatrix(image.matrix)), image.isFullRange ? 1 : 0,
            sws_getCoefficients(SWS_CS_ITU709), 1, 0, 1 << 16, 1 << 16)
        // Kept between calls: this runs once a frame.
        (sourcePlanes[0], sourcePlanes[1]) = (UnsafePointer(image.data.0), UnsafePointer(image.data.1))
        (sourcePlanes[2], sourcePlanes[3]) = (UnsafePointer(image.data.2), UnsafePointer(image.data.3))
        (sourceStrides[0], sourceStrides[1]) = (image.strides.0, image.strides.1)
        (sourceStrides[2], sourceStrides[3]) = (image.strides.2, image.strides.3)
        let rows = withUnsafeMutablePointer(to: &frame.pointer.pointee.data) { data in
            withUnsafeMutablePointer(to: &frame.pointer.pointee.linesize) { lines in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { targetPlanes in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { targetStrides in
                        sws_scale(context, sourcePlanes, sourceStrides, 0, Int32(height), targetPlanes, targetStrides)
                    }
                }
            }
        }
        if rows <= 0 { throw FFmpegError(code: rows, operation: "tone map") }
        map(frame, width: width, height: height)
        let target =
            output.flatMap { $0.width == width && $0.height == height ? $0 : nil }
            ?? Picture(width: width, height: height)
        output = target
        try scaler.scale(
            SourceImage(frame: frame.pointer), region: PixelRect(x: 0, y: 0, width: width, height: height), into: target
        )
        return target
    }

    private func rgbFrame(width: Int, height: Int) throws -> Frame {
        if let rgb, rgb.pointer.pointee.width == Int32(width), rgb.pointer.pointee.height == Int32(height) {
            return rgb
        }
        let frame = Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_RGB48LE.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 64), "tone map buffer")
        rgb = frame
        return frame
    }

    /// Each pixel: to linear light, BT.2020 to BT.709 primaries, Hable on the brightest
    /// component, clipped, encoded; in place.
    private func map(_ frame: Frame, width: Int, height: Int) {
        let stride = Int(frame.pointer.pointee.linesize.0)
        let base = frame.pointer.pointee.data.0!
        let whitePeak = Self.hable(Self.peak)
        linear.withUnsafeBufferPointer { linear in
            gamma.withUnsafeBufferPointer { gamma in
                for y in 0..<height {
                    let row = UnsafeMutableRawPointer(base + y * stride).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width {
                        var r = linear[Int(row[3 * x])]
                        var g = linear[Int(row[3 * x + 1])]
                        var b = linear[Int(row[3 * x + 2])]
                        if transfer == .hlg {
                            // HLG's OOTF for a 1000-nit display: 1000 × Ys^0.2, in 100-nit units.
                            let scene = 0.2627 * r + 0.6780 * g + 0.0593 * b
                            let gain = 10 * powf(max(scene, 1e-6), 0.2)
                            (r, g, b) = (r * gain, g * gain, b * gain)
                        }
                        let r709 = 1.6605 * r - 0.5876 * g - 0.0728 * b
                        let g709 = -0.1246 * r + 1.1329 * g - 0.0083 * b
                        let b709 = -0.0182 * r - 0.1006 * g + 1.1187 * b
                        let signal = max(max(r709, g709), max(b709, 1e-6))
                        let scale = Self.hable(signal) / whitePeak / signal
                        func encode(_ light: Float) -> UInt16 {
                            gamma[Int((min(max(light * scale, 0), 1) * 65535).rounded())]
                        }
                        row[3 * x] = encode(r709)
                        row[3 * x + 1] = encode(g709)
                        row[3 * x + 2] = encode(b709)
                    }
                }
            }
        }
    }
}
