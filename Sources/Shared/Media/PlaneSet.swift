/// A sample of a picture's plane: 8 bits in a byte, or 10 bits in a 16-bit word. Alpha planes
/// hold samples of the same depth; blending weighs in 0...255 whatever the depth.
package protocol PlaneSample: FixedWidthInteger & UnsignedInteger {
    static var depth: Int { get }
    /// Fully opaque alpha: 255 or 1023.
    static var opaque: Self { get }
    /// An alpha sample as a weight in 0...255.
    static func weight(_ alpha: Self) -> UInt32
    /// `(top * alpha + bottom * (255 - alpha)) / 255`, rounded to nearest, for alpha in 0...255.
    static func mix(_ top: UInt32, _ bottom: UInt32, _ alpha: UInt32) -> Self
}

extension UInt8: PlaneSample {
    package static var depth: Int { 8 }
    package static var opaque: UInt8 { 255 }

    @inline(__always)
    package static func weight(_ alpha: UInt8) -> UInt32 { UInt32(alpha) }

    @inline(__always)
    package static func mix(_ top: UInt32, _ bottom: UInt32, _ alpha: UInt32) -> UInt8 {
        let x = top * alpha + bottom * (255 - alpha) + 128
        return UInt8(truncatingIfNeeded: (x + (x >> 8)) >> 8)
    }
}

extension UInt16: PlaneSample {
    package static var depth: Int { 10 }
    package static var opaque: UInt16 { 1023 }

    @inline(__always)
    package static func weight(_ alpha: UInt16) -> UInt32 { (UInt32(alpha) * 255 + 511) / 1023 }

    @inline(__always)
    package static func mix(_ top: UInt32, _ bottom: UInt32, _ alpha: UInt32) -> UInt16 {
        UInt16(truncatingIfNeeded: (top * alpha + bottom * (255 - alpha) + 127) / 255)
    }
}

/// Pointers to the top-left pixel of a YUV 4:2:0 region (plus optional alpha) and the row
/// strides, in samples. A view: it owns nothing.
package struct PlaneSet<Sample: PlaneSample> {
    package var y: UnsafeMutablePointer<Sample>
    package var u: UnsafeMutablePointer<Sample>
    package var v: UnsafeMutablePointer<Sample>
    var a: UnsafeMutablePointer<Sample>?
    package var lumaStride: Int
    package var chromaStride: Int
    var alphaStride: Int

    /// Paints `color` at `alpha` (0...255) over the region; `opaque` also sets the region's alpha
    /// plane, when there is one, to fully opaque.
    func fill(width: Int, height: Int, color: SampleColor, alpha: Int, opaque: Bool = false) {
        let (cy, cu, cv) = (
            Sample(truncatingIfNeeded: color.y), Sample(truncatingIfNeeded: color.u),
            Sample(truncatingIfNeeded: color.v)
        )
        if opaque, let a {
            for row in 0..<height { (a + row * alphaStride).update(repeating: Sample.opaque, count: width) }
        }
        if alpha >= 255 {
            for row in 0..<height { (y + row * lumaStride).update(repeating: cy, count: width) }
            for row in 0..<height / 2 {
                (u + row * chromaStride).update(repeating: cu, count: width / 2)
                (v + row * chromaStride).update(repeating: cv, count: width / 2)
            }
            return
        }
        let weight = UInt32(Swift.max(0, alpha))
        for row in 0..<height {
            let line = y + row * lumaStride
            for x in 0..<width { line[x] = Sample.mix(UInt32(color.y), UInt32(line[x]), weight) }
        }
        for row in 0..<height / 2 {
            let lineU = u + row * chromaStride
            let lineV = v + row * chromaStride
            for x in 0..<width / 2 {
                lineU[x] = Sample.mix(UInt32(color.u), UInt32(lineU[x]), weight)
                lineV[x] = Sample.mix(UInt32(color.v), UInt32(lineV[x]), weight)
            }
        }
    }
}

/// A `PlaneSet` of either depth, for code that must handle both.
enum AnyPlaneSet {
    case eight(PlaneSet<UInt8>)
    case ten(PlaneSet<UInt16>)
}

/// Integer alpha blending: exact, so the same inputs give the same bytes on every machine.
enum Blend {
    /// Draws `source` over `target` for a `width` x `height` region (both even).
    /// `opacity` is 0...255; the source's alpha plane, when present, multiplies it.
    static func draw<Sample: PlaneSample>(
        _ source: PlaneSet<Sample>, over target: PlaneSet<Sample>, width: Int, height: Int, opacity: Int
    ) {
        let opacity = UInt32(Swift.max(0, Swift.min(255, opacity)))
        if opacity == 0 { return }
        guard let alpha = source.a else {
            if opacity == 255 {
                copy(source, to: target, width: width, height: height)
            } else {
                uniform(source, over: target, width: width, height: height, alpha: opacity)
            }
            return
        }
        for row in 0..<height {
            let top = source.y + row * source.lumaStride
            let bottom = target.y + row * target.lumaStride
            let weights = alpha + row * source.alphaStride
            for x in 0..<width {
                let a = (Sample.weight(weights[x]) * opacity + 127) / 255
                bottom[x] = Sample.mix(UInt32(top[x]), UInt32(bottom[x]), a)
            }
        }
        for row in 0..<height / 2 {
            let topU = source.u + row * source.chromaStride
            let topV = source.v + row * source.chromaStride
            let bottomU = target.u + row * target.chromaStride
            let bottomV = target.v + row * target.chromaStride
            let upper = alpha + 2 * row * source.alphaStride
            let lower = upper + source.alphaStride
            for x in 0..<width / 2 {
                // Chroma covers 2x2 luma samples: use their mean alpha.
                let sum =
                    Sample.weight(upper[2 * x]) + Sample.weight(upper[2 * x + 1]) + Sample.weight(lower[2 * x])
                    + Sample.weight(lower[2 * x + 1])
                let a = ((sum + 2) / 4 * opacity + 127) / 255
                bottomU[x] = Sample.mix(UInt32(topU[x]), UInt32(bottomU[x]), a)
                bottomV[x] = Sample.mix(UInt32(topV[x]), UInt32(bottomV[x]), a)
            }
        }
    }

    static func copy<Sample: PlaneSample>(
        _ source: PlaneSet<Sample>, to target: PlaneSet<Sample>, width: Int, height: Int
    ) {
        for row in 0..<height {
            (target.y + row * target.lumaStride).update(from: source.y + row * source.lumaStride, count: width)
        }
        for row in 0..<height / 2 {
            (target.u + row * target.chromaStride).update(from: source.u + row * source.chromaStride, count: width / 2)
            (target.v + row * target.chromaStride).update(from: source.v + row * source.chromaStride, count: width / 2)
        }
    }

    private static func uniform<Sample: PlaneSample>(
        _ source: PlaneSet<Sample>, over target: PlaneSet<Sample>, width: Int, height: Int, alpha: UInt32
    ) {
        func plane(
            _ top: UnsafeMutablePointer<Sample>, _ topStride: Int, _ bottom: UnsafeMutablePointer<Sample>,
            _ bottomStride: Int, _ w: Int, _ h: Int
        ) {
            for row in 0..<h {
                let t = top + row * topStride
                let b = bottom + row * bottomStride
                for x in 0..<w { b[x] = Sample.mix(UInt32(t[x]), UInt32(b[x]), alpha) }
            }
        }
        plane(source.y, source.lumaStride, target.y, target.lumaStride, width, height)
        plane(source.u, source.chromaStride, target.u, target.chromaStride, width / 2, height / 2)
        plane(source.v, source.chromaStride, target.v, target.chromaStride, width / 2, height / 2)
    }
}
