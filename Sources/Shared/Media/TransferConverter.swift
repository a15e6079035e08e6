import CFFmpeg
import FarmCore
import Foundation

/// Converts pictures from one dynamic range to the canvas's, in linear light, the way ffmpeg's
/// `zscale` (and `tonemap`) graph does. Light is counted with 100 nits as 1.0.
///
/// - HDR to SDR: to linear light (`zscale=t=linear:npl=100`; HLG through its OOTF for a
///   1000-nit display), BT.2020 to BT.709 primaries (`zscale=p=bt709`), Hable's curve on the
///   brightest component with a peak of 1000 nits (`tonemap=hable:desat=0:peak=10`), clipped to
///   the BT.709 gamut, encoded for a BT.1886 display (`zscale=t=bt709`, gamma 2.4), 8 bits.
/// - SDR to HDR: SDR decoded for a BT.1886 display (gamma 2.4) with its white at 203 nits, the
///   reference white of ITU-R BT.2408 (`zscale=npl=203`), BT.709 to BT.2020 primaries, then
///   encoded by PQ's inverse EOTF, or for HLG by the inverse of its 1000-nit OOTF and its OETF;
///   10 bits.
/// - PQ to HLG and back: through display light of a 1000-nit HLG display; PQ above 1000 nits
///   is clipped.
///
/// Keeps its buffers between calls; the returned picture is overwritten by the next call.
public final class TransferConverter {
    /// 1000 nits, in units of the 100-nit SDR white.
    static let peak: Float = 10
    /// SDR white in an HDR picture: 203 nits (ITU-R BT.2408).
    static let sdrWhite: Float = 2.03
    private let source: DynamicRange
    private let primaries: SourcePrimaries
    private let target: DynamicRange
    private var toRGB: OpaquePointer?
    private var rgb: Frame?
    private let scaler = Scaler()
    private var output: Picture?
    private let sourcePlanes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 4)
    private let sourceStrides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)
    /// The source's light for each 16-bit code value (HLG: scene light in [0, 1]).
    private let linear: [Float]
    /// The target's 16-bit code for each step of `encodeIndex`.
    private let encoding: [UInt16]

    /// A converter from `source` in `primaries` to `target`, which differ.
    public init(from source: DynamicRange, primaries: SourcePrimaries = .native, to target: DynamicRange) {
        precondition(source != target || primaries != .native, "nothing to convert")
        self.source = source
        self.primaries = primaries
        self.target = target
        linear = Self.tables.withLock { tables in
            if let table = tables.linear[source] { return table }
            let table = (0..<65536).map { Self.toLinear(Float($0) / 65535, from: source) }
            tables.linear[source] = table
            return table
        }
        encoding = Self.tables.withLock { tables in
            if let table = tables.encoding[target] { return table }
            let table = Self.encodingTable(for: target)
            tables.encoding[target] = table
            return table
        }
    }

    /// The lookup tables, made once per process and range: every layer and title of every
    /// chunk a worker renders converts with the same ones.
    private static let tables = Locked((linear: [DynamicRange: [Float]](), encoding: [DynamicRange: [UInt16]]()))

    private static func encodingTable(for target: DynamicRange) -> [UInt16] {
        (0..<65536).map { index in
            let step = Float(index) / 65535
            let value: Float
            switch target {
            // SDR: linear light in [0, 1], for a BT.1886 display (gamma 2.4), as zimg encodes it.
            case .sdr: value = powf(step, 1 / 2.4)
            // PQ: the square root of light over PQ's 10,000 nits.
            case .pq: value = pqEncode(step * step)
            // HLG: the square root of scene light in [0, 1].
            case .hlg: value = hlgEncode(step * step)
            }
            return UInt16((min(max(value, 0), 1) * 65535).rounded())
        }
    }

    deinit {
        sws_freeContext(toRGB)
        sourcePlanes.deallocate()
        sourceStrides.deallocate()
    }

    /// One code value's light, 1.0 being 100 nits (SDR: 1.0 its white; HLG: scene light).
    static func toLinear(_ value: Float, from range: DynamicRange) -> Float {
        switch range {
        case .sdr:
            return powf(value, 2.4)
        case .pq:
            let p = powf(value, 1 / PQ.m2)
            return 100 * powf(max(p - PQ.c1, 0) / (PQ.c2 - PQ.c3 * p), 1 / PQ.m1)
        case .hlg:
            // The inverse OETF gives scene light in [0, 1]; the OOTF (gamma 1.2 for a
            // 1000-nit display) is applied per pixel in `map`.
            return value <= 0.5 ? value * value / 3 : (expf((value - HLG.c) / HLG.a) + HLG.b) / 12
        }
    }

    /// PQ's inverse EOTF of `light`, a share of 10,000 nits.
    static func pqEncode(_ light: Float) -> Float {
        let y = powf(max(light, 0), PQ.m1)
        return powf((PQ.c1 + PQ.c2 * y) / (1 + PQ.c3 * y), PQ.m2)
    }

    /// HLG's OETF of scene light in [0, 1].
    static func hlgEncode(_ scene: Float) -> Float {
        scene <= 1 / 12 ? (3 * max(scene, 0)).squareRoot() : HLG.a * logf(12 * scene - HLG.b) + HLG.c
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

    /// `image` (any YUV or RGB in the source's range) converted to a picture of the target's
    /// depth and its size (even).
    public func picture(from image: SourceImage) throws -> Picture {
        let width = Swift.max(2, image.width & ~1)
        let height = Swift.max(2, image.height & ~1)
        // Planar RGB, as ffmpeg's graph converts (`format=gbrp16le`): libswscale then
        // interpolates chroma to every pixel, where packed RGB would repeat it over pairs.
        // Alpha, when there is one, rides along untouched in a fourth plane.
        let frame = try rgbFrame(width: width, height: height, alpha: image.hasAlpha)
        let context = sws_getCachedContext(
            toRGB, Int32(width), Int32(height), image.format, Int32(width), Int32(height),
            AVPixelFormat(frame.pointer.pointee.format), Scaler.flags, nil, nil, nil)
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
        let result =
            output.flatMap { $0.width == width && $0.height == height && $0.hasAlpha == image.hasAlpha ? $0 : nil }
            ?? Picture(width: width, height: height, hasAlpha: image.hasAlpha, depth: target.depth)
        output = result
        try scaler.scale(
            SourceImage(frame: frame.pointer), region: PixelRect(x: 0, y: 0, width: width, height: height), into: result
        )
        return result
    }

    /// `color` (an SDR colour) as this converter turns it into samples of the target.
    public func sample(of color: RGBColor) throws -> SampleColor {
        let swatch = Picture(width: 2, height: 2)
        swatch.fill(YUVColor(color))
        let converted = try picture(from: SourceImage(picture: swatch))
        switch converted.withView({ $0 }) {
        case .eight(let planes):
            return SampleColor(y: UInt16(planes.y[0]), u: UInt16(planes.u[0]), v: UInt16(planes.v[0]))
        case .ten(let planes): return SampleColor(y: planes.y[0], u: planes.u[0], v: planes.v[0])
        }
    }

    private func rgbFrame(width: Int, height: Int, alpha: Bool) throws -> Frame {
        let format = alpha ? AV_PIX_FMT_GBRAP16LE : AV_PIX_FMT_GBRP16LE
        if let rgb, rgb.pointer.pointee.width == Int32(width), rgb.pointer.pointee.height == Int32(height),
            rgb.pointer.pointee.format == format.rawValue
        {
            return rgb
        }
        let frame = Frame()
        frame.pointer.pointee.format = format.rawValue
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 64), "tone map buffer")
        rgb = frame
        return frame
    }

    /// Each pixel: to linear light, to the target's primaries, to its light range, encoded; in
    /// place.
    private func map(_ frame: Frame, width: Int, height: Int) {
        // GBR planes: 0 green, 1 blue, 2 red.
        let data = frame.pointer.pointee.data
        let lines = frame.pointer.pointee.linesize
        let light = self.light
        linear.withUnsafeBufferPointer { linear in
            encoding.withUnsafeBufferPointer { encoding in
                func row(_ plane: UnsafeMutablePointer<UInt8>?, _ stride: Int32, _ y: Int) -> UnsafeMutablePointer<
                    UInt16
                > {
                    UnsafeMutableRawPointer(plane! + y * Int(stride)).assumingMemoryBound(to: UInt16.self)
                }
                for y in 0..<height {
                    let (green, blue, red) = (row(data.0, lines.0, y), row(data.1, lines.1, y), row(data.2, lines.2, y))
                    for x in 0..<width {
                        let (r, g, b) = light(linear[Int(red[x])], linear[Int(green[x])], linear[Int(blue[x])])
                        red[x] = encoding[Int((min(max(r, 0), 1) * 65535).rounded())]
                        green[x] = encoding[Int((min(max(g, 0), 1) * 65535).rounded())]
                        blue[x] = encoding[Int((min(max(b, 0), 1) * 65535).rounded())]
                    }
                }
            }
        }
    }

    /// From the source's light (from `linear`) to the index `encoding` takes, in [0, 1]. An
    /// HDR source in other primaries than BT.2020 goes to BT.2020 first, in display light.
    private var light: (Float, Float, Float) -> (Float, Float, Float) {
        let display = displayLightInBT2020
        switch (source, target) {
        case (.sdr, _):
            // SDR white at 203 nits, BT.709 to BT.2020 primaries.
            let toHDR: (Float, Float, Float) -> (Float, Float, Float) = { r, g, b in
                let white = Self.sdrWhite
                return (
                    white * (0.6274 * r + 0.3293 * g + 0.0433 * b), white * (0.0691 * r + 0.9195 * g + 0.0114 * b),
                    white * (0.0164 * r + 0.0880 * g + 0.8956 * b)
                )
            }
            return { r, g, b in self.encodeHDR(toHDR(r, g, b)) }
        case (_, .sdr):
            let whitePeak = Self.hable(Self.peak)
            return { r, g, b in
                let (r, g, b) = display(r, g, b)
                let r709 = 1.6605 * r - 0.5876 * g - 0.0728 * b
                let g709 = -0.1246 * r + 1.1329 * g - 0.0083 * b
                let b709 = -0.0182 * r - 0.1006 * g + 1.1187 * b
                let signal = max(max(r709, g709), max(b709, 1e-6))
                let scale = Self.hable(signal) / whitePeak / signal
                return (r709 * scale, g709 * scale, b709 * scale)
            }
        default:
            return { r, g, b in self.encodeHDR(display(r, g, b)) }
        }
    }

    /// An HDR source's light as BT.2020 display light: HLG's scene light through its OOTF
    /// (weighted by BT.2100's luminance, whatever its primaries), then other primaries to
    /// BT.2020.
    private var displayLightInBT2020: (Float, Float, Float) -> (Float, Float, Float) {
        let hlg = source == .hlg
        guard primaries == .p3D65 else { return hlg ? Self.displayLight : { ($0, $1, $2) } }
        let m = SourcePrimaries.p3D65ToBT2020
        return { r, g, b in
            let (r, g, b) = hlg ? Self.displayLight(r, g, b) : (r, g, b)
            return (
                m[0] * r + m[1] * g + m[2] * b, m[3] * r + m[4] * g + m[5] * b, m[6] * r + m[7] * g + m[8] * b
            )
        }
    }

    /// HLG scene light through the OOTF of a 1000-nit display: 1000 × Ys^0.2, in 100-nit units.
    @inline(__always)
    private static func displayLight(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        let scene = 0.2627 * r + 0.6780 * g + 0.0593 * b
        let gain = 10 * powf(max(scene, 1e-6), 0.2)
        return (r * gain, g * gain, b * gain)
    }

    /// BT.2020 display light (100-nit units) as the index `encoding` takes for an HDR target:
    /// PQ's share of 10,000 nits, or HLG's scene light through the inverse 1000-nit OOTF, each
    /// as its square root.
    @inline(__always)
    private func encodeHDR(_ light: (Float, Float, Float)) -> (Float, Float, Float) {
        let (r, g, b) = light
        if target == .pq {
            return ((max(r, 0) / 100).squareRoot(), (max(g, 0) / 100).squareRoot(), (max(b, 0) / 100).squareRoot())
        }
        // Ys = (Yd / 1000)^(1/1.2); scene = display / 1000 / Ys^0.2.
        let display = max(0.2627 * r + 0.6780 * g + 0.0593 * b, 1e-6) / Self.peak
        let scale = powf(display, -0.2 / 1.2) / Self.peak
        return ((max(r * scale, 0)).squareRoot(), (max(g * scale, 0)).squareRoot(), (max(b * scale, 0)).squareRoot())
    }
}

/// SMPTE ST 2084's constants.
private enum PQ {
    static let m1: Float = 0.1593017578125
    static let m2: Float = 78.84375
    static let c1: Float = 0.8359375
    static let c2: Float = 18.8515625
    static let c3: Float = 18.6875
}

/// ARIB STD-B67's (BT.2100 HLG's) constants.
private enum HLG {
    static let a: Float = 0.17883277
    static let b: Float = 0.28466892
    static let c: Float = 0.55991073
}
