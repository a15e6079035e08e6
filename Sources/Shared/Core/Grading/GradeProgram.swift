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
    /// `1 / maxCode`, as lut3d computes it (a float division).
    let unit: Float
    /// The first step's per-channel result for every sample value, when it is a CDL.
    let firstTables: [[Float]]?
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
        unit = 1 / maxCode
        if case .decision(let first) = steps[0] {
            let unit = self.unit
            firstTables = (0..<3).map { channel in
                (0...(1 << depth) - 1).map { first.power(Float($0) * unit, channel: channel) }
            }
        } else {
            firstTables = nil
        }
        if case .lut = steps.last! { truncates = true } else { truncates = false }
    }

    /// Grades one pixel's samples.
    @inline(__always)
    public func apply(_ red: Int, _ green: Int, _ blue: Int) -> (Int, Int, Int) {
        var pixel: (Float, Float, Float)
        var index = 0
        if let firstTables, case .decision(let first) = steps[0] {
            pixel = first.saturate((firstTables[0][red], firstTables[1][green], firstTables[2][blue]))
            index = 1
        } else {
            pixel = (Float(red) * unit, Float(green) * unit, Float(blue) * unit)
        }
        while index < steps.count {
            switch steps[index] {
            case .decision(let step): pixel = step.apply(pixel)
            case .lut(let step): pixel = step.apply(pixel)
            }
            index += 1
        }
        return (quantized(pixel.0), quantized(pixel.1), quantized(pixel.2))
    }

    @inline(__always)
    private func quantized(_ value: Float) -> Int {
        let scaled = value * maxCode
        guard scaled > 0 else { return 0 }
        guard scaled < maxCode else { return Int(maxCode) }
        return truncates ? Int(scaled) : Int(scaled.rounded())
    }

    /// Grades `count` pixels of three planes in place.
    public func apply<Sample: FixedWidthInteger>(
        red: UnsafeMutablePointer<Sample>, green: UnsafeMutablePointer<Sample>, blue: UnsafeMutablePointer<Sample>,
        count: Int
    ) {
        for index in 0..<count {
            let (r, g, b) = apply(Int(red[index]), Int(green[index]), Int(blue[index]))
            red[index] = Sample(truncatingIfNeeded: r)
            green[index] = Sample(truncatingIfNeeded: g)
            blue[index] = Sample(truncatingIfNeeded: b)
        }
    }
}

/// An ASC CDL as a step: slope, offset, power (each clamped to 0–1), then saturation.
struct CDLStep: Sendable {
    let slope: [Double]
    let offset: [Double]
    let power: [Double]
    let saturation: Float

    init(_ cdl: ColourDecision) {
        slope = cdl.slope
        offset = cdl.offset
        power = cdl.power
        saturation = Float(cdl.saturation)
    }

    /// `clamp(clamp(value × slope + offset) ^ power)` for one channel, in double precision.
    @inline(__always)
    func power(_ value: Float, channel: Int) -> Float {
        let linear = Swift.min(Swift.max(Double(value) * slope[channel] + offset[channel], 0), 1)
        return Float(Swift.min(Swift.max(pow(linear, power[channel]), 0), 1))
    }

    @inline(__always)
    func saturate(_ pixel: (Float, Float, Float)) -> (Float, Float, Float) {
        guard saturation != 1 else { return pixel }
        let weights = ColourDecision.lumaWeights
        let luma = Float(weights.red) * pixel.0 + Float(weights.green) * pixel.1 + Float(weights.blue) * pixel.2
        func mixed(_ value: Float) -> Float { Swift.min(Swift.max(luma + saturation * (value - luma), 0), 1) }
        return (mixed(pixel.0), mixed(pixel.1), mixed(pixel.2))
    }

    @inline(__always)
    func apply(_ pixel: (Float, Float, Float)) -> (Float, Float, Float) {
        saturate((power(pixel.0, channel: 0), power(pixel.1, channel: 1), power(pixel.2, channel: 2)))
    }
}
