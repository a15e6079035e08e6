/// Pointers to the top-left pixel of a YUV 4:2:0 region (plus optional alpha) and the row strides.
/// A view: it owns nothing.
struct PlaneSet {
    var y: UnsafeMutablePointer<UInt8>
    var u: UnsafeMutablePointer<UInt8>
    var v: UnsafeMutablePointer<UInt8>
    var a: UnsafeMutablePointer<UInt8>?
    var lumaStride: Int
    var chromaStride: Int
    var alphaStride: Int

    func fill(width: Int, height: Int, color: YUVColor, alpha: Int) {
        if alpha >= 255 {
            for row in 0..<height { (y + row * lumaStride).update(repeating: color.y, count: width) }
            for row in 0..<height / 2 {
                (u + row * chromaStride).update(repeating: color.u, count: width / 2)
                (v + row * chromaStride).update(repeating: color.v, count: width / 2)
            }
            return
        }
        let weight = UInt32(alpha)
        for row in 0..<height {
            let line = y + row * lumaStride
            for x in 0..<width { line[x] = Blend.mix(UInt32(color.y), UInt32(line[x]), weight) }
        }
        for row in 0..<height / 2 {
            let lineU = u + row * chromaStride
            let lineV = v + row * chromaStride
            for x in 0..<width / 2 {
                lineU[x] = Blend.mix(UInt32(color.u), UInt32(lineU[x]), weight)
                lineV[x] = Blend.mix(UInt32(color.v), UInt32(lineV[x]), weight)
            }
        }
    }
}

/// Integer alpha blending: exact, so the same inputs give the same bytes on every machine.
enum Blend {
    /// `(top * alpha + bottom * (255 - alpha)) / 255`, rounded to nearest, for alpha in 0...255.
    @inline(__always)
    static func mix(_ top: UInt32, _ bottom: UInt32, _ alpha: UInt32) -> UInt8 {
        let x = top * alpha + bottom * (255 - alpha) + 128
        return UInt8(truncatingIfNeeded: (x + (x >> 8)) >> 8)
    }

    /// Draws `source` over `target` for a `width` x `height` region (both even).
    /// `opacity` is 0...255; the source's alpha plane, when present, multiplies it.
    static func draw(_ source: PlaneSet, over target: PlaneSet, width: Int, height: Int, opacity: Int) {
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
                let a = (UInt32(weights[x]) * opacity + 127) / 255
                bottom[x] = mix(UInt32(top[x]), UInt32(bottom[x]), a)
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
                    UInt32(upper[2 * x]) + UInt32(upper[2 * x + 1]) + UInt32(lower[2 * x]) + UInt32(lower[2 * x + 1])
                let a = ((sum + 2) / 4 * opacity + 127) / 255
                bottomU[x] = mix(UInt32(topU[x]), UInt32(bottomU[x]), a)
                bottomV[x] = mix(UInt32(topV[x]), UInt32(bottomV[x]), a)
            }
        }
    }

    static func copy(_ source: PlaneSet, to target: PlaneSet, width: Int, height: Int) {
        for row in 0..<height {
            (target.y + row * target.lumaStride).update(from: source.y + row * source.lumaStride, count: width)
        }
        for row in 0..<height / 2 {
            (target.u + row * target.chromaStride).update(from: source.u + row * source.chromaStride, count: width / 2)
            (target.v + row * target.chromaStride).update(from: source.v + row * source.chromaStride, count: width / 2)
        }
    }

    private static func uniform(_ source: PlaneSet, over target: PlaneSet, width: Int, height: Int, alpha: UInt32) {
        func plane(
            _ top: UnsafeMutablePointer<UInt8>, _ topStride: Int, _ bottom: UnsafeMutablePointer<UInt8>,
            _ bottomStride: Int, _ w: Int, _ h: Int
        ) {
            for row in 0..<h {
                let t = top + row * topStride
                let b = bottom + row * bottomStride
                for x in 0..<w { b[x] = mix(UInt32(t[x]), UInt32(b[x]), alpha) }
            }
        }
        plane(source.y, source.lumaStride, target.y, target.lumaStride, width, height)
        plane(source.u, source.chromaStride, target.u, target.chromaStride, width / 2, height / 2)
        plane(source.v, source.chromaStride, target.v, target.chromaStride, width / 2, height / 2)
    }
}
