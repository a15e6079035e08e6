import Foundation

/// Grades compiled for one sample depth: each grade's CDL then its LUT, grade after grade, on
/// full-range RGB samples (0–255 or 0–1023), in single-precision float between steps.
///
/// Deterministic: every pixel's result depends on its own three samples alone, through the same
/// float operations in the same order, whatever thread, chunk or frame runs it. Per-channel work
/// that sees one sample (the first step's slope, offset and power, or a first LUT's input
/// scaling) is a table over the sample values, made once.
public struct GradeProgram: Sendable {
    enum Step: Sendable {
        case decision(CDLStep)
        case lut(LUTStep)
    }

    /// 8 or 10.
    public let depth: Int
    let steps: [Step]
    /// The largest sample, as a float.
    let maxCode: Float
    /// What each sample value enters as, red's values then green's then blue's: `value / maxCode`
    /// (a float division, as lut3d computes it), or when the first step is a CDL, that step's
    /// slope, offset and power of it.
    let entry: [Float]
    /// Whether the last step is a LUT, whose output is truncated as ffmpeg's lut3d truncates it;
    /// a CDL's output is rounded to the nearest sample.
    let truncates: Bool

    /// The grades in the order they apply, each with its LUT (from `luts`, by path); nil when
    /// there is nothing to do.
    public init?(_ grades: [ColourGrade], luts: [String: CubeLUT], depth: Int) {
        var steps: [Step] = []
        for grade in grades {
            if let cdl = grade.cdl { steps.append(.decision(CDLStep(cdl))) }
            if let reference = grade.lut {
                guard let lut = luts[reference.path] else { preconditionFailure("LUT \(reference.path) not loaded") }
                steps.append(.lut(LUTStep(lut)))
            }
        }
        guard !steps.isEmpty else { return nil }
        self.depth = depth
        self.steps = steps
        let maxCode = Float((1 << depth) - 1)
        self.maxCode = maxCode
        let unit = 1 / maxCode
        let values = (0..<(1 << depth)).map { Float($0) * unit }
        if case .decision(let first) = steps[0] {
            entry = (0..<3).flatMap { channel in values.map { first.power($0, channel: channel) } }
        } else {
            entry = values + values + values
        }
        if case .lut = steps.last! { truncates = true } else { truncates = false }
    }

    /// Grades one pixel's samples (the row path, for one pixel).
    public func apply(_ red: Int, _ green: Int, _ blue: Int) -> (Int, Int, Int) {
        var pixel = (UInt16(red), UInt16(green), UInt16(blue))
        apply(red: &pixel.0, green: &pixel.1, blue: &pixel.2, count: 1)
        return (Int(pixel.0), Int(pixel.1), Int(pixel.2))
    }

    /// Grades `count` pixels of three 8-bit planes in place.
    public func apply(
        red: UnsafeMutablePointer<UInt8>, green: UnsafeMutablePointer<UInt8>, blue: UnsafeMutablePointer<UInt8>,
        count: Int
    ) { grade(red: red, green: green, blue: blue, count: count) }

    /// Grades `count` pixels of three 16-bit planes (10-bit samples) in place.
    public func apply(
        red: UnsafeMutablePointer<UInt16>, green: UnsafeMutablePointer<UInt16>, blue: UnsafeMutablePointer<UInt16>,
        count: Int
    ) { grade(red: red, green: green, blue: blue, count: count) }

    /// Step by step over the row in float, so each step's tables are looked up once a row, not
    /// once a pixel. Generic inside this module only, where the two sample types specialize it.
    private func grade<Sample: FixedWidthInteger>(
        red: UnsafeMutablePointer<Sample>, green: UnsafeMutablePointer<Sample>, blue: UnsafeMutablePointer<Sample>,
        count: Int
    ) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: count * 3) { buffer in
            let r = buffer.baseAddress!
            let (g, b) = (r + count, r + 2 * count)
            let levels = 1 << depth
            entry.withUnsafeBufferPointer { entry in
                for index in 0..<count {
                    r[index] = entry[Swift.min(Int(red[index]), levels - 1)]
                    g[index] = entry[levels + Swift.min(Int(green[index]), levels - 1)]
                    b[index] = entry[2 * levels + Swift.min(Int(blue[index]), levels - 1)]
                }
            }
            for (position, step) in steps.enumerated() {
                switch step {
                case .decision(let cdl):
                    // The first CDL's slope, offset and power are in `entry`.
                    if position > 0 { cdl.power(r, g, b, count: count) }
                    cdl.saturate(r, g, b, count: count)
                case .lut(let lut):
                    lut.apply(r, g, b, count: count)
                }
            }
            for (plane, values) in [(red, r), (green, g), (blue, b)] {
                for index in 0..<count { plane[index] = Sample(truncatingIfNeeded: quantized(values[index])) }
            }
        }
    }

    @inline(__always)
    private func quantized(_ value: Float) -> Int {
        let scaled = value * maxCode
        guard scaled > 0 else { return 0 }
        guard scaled < maxCode else { return Int(maxCode) }
        return truncates ? Int(scaled) : Int(scaled.rounded())
    }
}

/// An ASC CDL as a step: slope, offset, power (each clamped to 0–1), then saturation.
struct CDLStep: Sendable {
    let slope: (Double, Double, Double)
    let offset: (Double, Double, Double)
    let power: (Double, Double, Double)
    let saturation: Float

    init(_ cdl: ColourDecision) {
        slope = (cdl.slope[0], cdl.slope[1], cdl.slope[2])
        offset = (cdl.offset[0], cdl.offset[1], cdl.offset[2])
        power = (cdl.power[0], cdl.power[1], cdl.power[2])
        saturation = Float(cdl.saturation)
    }

    /// `clamp(clamp(value × slope + offset) ^ power)` for one channel, in double precision.
    @inline(__always)
    func power(_ value: Float, channel: Int) -> Float {
        let (slope, offset, power) =
            channel == 0
            ? (slope.0, offset.0, power.0) : channel == 1 ? (slope.1, offset.1, power.1) : (slope.2, offset.2, power.2)
        let linear = Swift.min(Swift.max(Double(value) * slope + offset, 0), 1)
        return Float(Swift.min(Swift.max(pow(linear, power), 0), 1))
    }

    func power(
        _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
        count: Int
    ) {
        for index in 0..<count {
            r[index] = power(r[index], channel: 0)
            g[index] = power(g[index], channel: 1)
            b[index] = power(b[index], channel: 2)
        }
    }

    func saturate(
        _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
        count: Int
    ) {
        guard saturation != 1 else { return }
        let weights = ColourDecision.lumaWeights
        let (wr, wg, wb) = (Float(weights.red), Float(weights.green), Float(weights.blue))
        let saturation = self.saturation
        for index in 0..<count {
            let luma = wr * r[index] + wg * g[index] + wb * b[index]
            r[index] = Swift.min(Swift.max(luma + saturation * (r[index] - luma), 0), 1)
            g[index] = Swift.min(Swift.max(luma + saturation * (g[index] - luma), 0), 1)
            b[index] = Swift.min(Swift.max(luma + saturation * (b[index] - luma), 0), 1)
        }
    }
}
