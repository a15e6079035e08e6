import FarmCore

extension Picture {
    /// Blends `layer` through an affine map: canvas pixel (x, y) shows the layer at
    /// `inverse(x + ½, y + ½)`, sampled bilinearly. Outside the layer counts as transparent, so
    /// turned edges fade over one pixel instead of stair-stepping. Positions step in 16.16 fixed
    /// point from one rounded matrix, so the bytes depend only on the inputs.
    /// `opacity` is 0...255; the layer's alpha plane, when it has one, multiplies it. Both
    /// pictures have one depth.
    public func drawWarped(_ layer: Picture, inverse: AffineTransform, opacity: Int) {
        precondition(layer.depth == depth, "a layer is drawn on a canvas of its own depth")
        let opacity = Swift.max(0, Swift.min(255, opacity))
        guard opacity > 0, let forward = inverse.inverted, let bounds = bounds(of: layer, under: forward) else {
            return
        }
        if depth == 8 {
            warp(
                layer.view(as: UInt8.self), size: (layer.width, layer.height), into: view(), inverse: inverse,
                opacity: opacity, bounds: bounds)
        } else {
            warp(
                layer.view(as: UInt16.self), size: (layer.width, layer.height), into: view(), inverse: inverse,
                opacity: opacity, bounds: bounds)
        }
    }

    private func warp<Sample: PlaneSample>(
        _ layer: PlaneSet<Sample>, size: (width: Int, height: Int), into target: PlaneSet<Sample>,
        inverse: AffineTransform, opacity: Int, bounds: (minX: Int, maxX: Int, minY: Int, maxY: Int)
    ) {
        let map = FixedPointMap(inverse)
        let (width, height) = size
        let coverage = Coverage(alpha: layer.a, stride: layer.alphaStride, width: width, height: height)
        let luma = Sampler(plane: layer.y, stride: layer.lumaStride, width: width, height: height)
        let opaque = layer.a == nil
        let lumaPlane = layer.y
        let lumaStride = layer.lumaStride
        for y in bounds.minY..<bounds.maxY {
            var (u, v) = map.position(x: bounds.minX, y: y, centre: 0.5)
            let columns = coverage.span(u: u, v: v, du: map.du.x, dv: map.dv.x, from: bounds.minX, to: bounds.maxX)
            u += (columns.lowerBound - bounds.minX) * map.du.x
            v += (columns.lowerBound - bounds.minX) * map.dv.x
            let row = target.y + y * target.lumaStride
            for x in columns {
                let (ui, vi) = (u >> 16, v >> 16)
                if opaque && ui >= 0 && vi >= 0 && ui < width - 1 && vi < height - 1 {
                    // Inside the layer: fully covered, no edge clamping (the same result, faster).
                    let (fx, fy) = ((u >> 8) & 0xFF, (v >> 8) & 0xFF)
                    let top = lumaPlane + vi * lumaStride + ui
                    let upper = Int(top[0]) * (256 - fx) + Int(top[1]) * fx
                    let lower = Int(top[lumaStride]) * (256 - fx) + Int(top[lumaStride + 1]) * fx
                    let value = (upper * (256 - fy) + lower * fy + 32768) >> 16
                    row[x] =
                        opacity == 255
                        ? Sample(truncatingIfNeeded: value) : Sample.mix(UInt32(value), UInt32(row[x]), UInt32(opacity))
                } else {
                    let a = coverage.at(u, v)
                    if a > 0 {
                        row[x] = Sample.mix(UInt32(luma.at(u, v)), UInt32(row[x]), UInt32((a * opacity + 127) / 255))
                    }
                }
                u += map.du.x
                v += map.dv.x
            }
        }
        let (chromaWidth, chromaHeight) = (width / 2, height / 2)
        let blue = Sampler(plane: layer.u, stride: layer.chromaStride, width: chromaWidth, height: chromaHeight)
        let red = Sampler(plane: layer.v, stride: layer.chromaStride, width: chromaWidth, height: chromaHeight)
        for cy in bounds.minY / 2..<bounds.maxY / 2 {
            // A chroma sample sits at the centre of its 2x2 luma block: luma point (2cx + 1, 2cy + 1).
            var (au, av) = map.position(x: bounds.minX, y: 2 * cy, centre: 1)
            var (cu, cv) = map.position(x: bounds.minX, y: 2 * cy, centre: 1, halve: true)
            let columns = coverage.span(
                u: au, v: av, du: 2 * map.du.x, dv: 2 * map.dv.x, from: bounds.minX / 2, to: bounds.maxX / 2)
            let skipped = columns.lowerBound - bounds.minX / 2
            (au, av) = (au + skipped * 2 * map.du.x, av + skipped * 2 * map.dv.x)
            (cu, cv) = (cu + skipped * map.du.x, cv + skipped * map.dv.x)
            let rowU = target.u + cy * target.chromaStride
            let rowV = target.v + cy * target.chromaStride
            for cx in columns {
                let (ai, aj, ci, cj) = (au >> 16, av >> 16, cu >> 16, cv >> 16)
                let inside =
                    opaque && ai >= 0 && aj >= 0 && ai < width - 1 && aj < height - 1 && ci >= 0 && cj >= 0
                    && ci < chromaWidth - 1 && cj < chromaHeight - 1
                let a = inside ? 255 : coverage.at(au, av)
                if a > 0 {
                    let weight = UInt32((a * opacity + 127) / 255)
                    rowU[cx] = Sample.mix(UInt32(blue.at(cu, cv)), UInt32(rowU[cx]), weight)
                    rowV[cx] = Sample.mix(UInt32(red.at(cu, cv)), UInt32(rowV[cx]), weight)
                }
                au += 2 * map.du.x
                av += 2 * map.dv.x
                cu += map.du.x
                cv += map.dv.x
            }
        }
    }

    /// The even-aligned canvas rectangle the mapped layer can touch, or nil when it misses.
    private func bounds(of layer: Picture, under forward: AffineTransform) -> (
        minX: Int, maxX: Int, minY: Int, maxY: Int
    )? {
        let (w, h) = (Double(layer.width), Double(layer.height))
        let corners = [forward.apply(0, 0), forward.apply(w, 0), forward.apply(0, h), forward.apply(w, h)]
        func clamped(_ value: Double) -> Int { Int(Swift.max(-1e6, Swift.min(1e6, value))) }
        let minX = Swift.max(0, clamped((corners.map(\.x).min()! - 1).rounded(.down)) & ~1)
        let maxX = Swift.min(width, (clamped((corners.map(\.x).max()! + 1).rounded(.up)) + 1) & ~1)
        let minY = Swift.max(0, clamped((corners.map(\.y).min()! - 1).rounded(.down)) & ~1)
        let maxY = Swift.min(height, (clamped((corners.map(\.y).max()! + 1).rounded(.up)) + 1) & ~1)
        guard minX < maxX, minY < maxY else { return nil }
        return (minX, maxX, minY, maxY)
    }
}

/// An inverse map in 16.16 fixed point: rounded once, then stepped in exact integers.
private struct FixedPointMap {
    let inverse: AffineTransform
    let du: (x: Int, y: Int)
    let dv: (x: Int, y: Int)

    init(_ inverse: AffineTransform) {
        self.inverse = inverse
        du = (Self.fixed(inverse.a), Self.fixed(inverse.c))
        dv = (Self.fixed(inverse.b), Self.fixed(inverse.d))
    }

    static func fixed(_ value: Double) -> Int { Int((Swift.max(-1e9, Swift.min(1e9, value)) * 65536).rounded()) }

    /// Where canvas point (x + centre, y + centre) samples the layer, less half a sample (samples
    /// sit at pixel centres). `halve` gives the position in a half-size chroma plane; x and y
    /// must then be even.
    func position(x: Int, y: Int, centre: Double, halve: Bool = false) -> (Int, Int) {
        let origin = inverse.apply(centre, centre)
        if halve {
            return (
                Self.fixed(origin.x / 2 - 0.5) + x / 2 * du.x + y / 2 * du.y,
                Self.fixed(origin.y / 2 - 0.5) + x / 2 * dv.x + y / 2 * dv.y
            )
        }
        return (Self.fixed(origin.x - 0.5) + x * du.x + y * du.y, Self.fixed(origin.y - 0.5) + x * dv.x + y * dv.y)
    }
}

/// Bilinear reads of one plane, edges clamped.
private struct Sampler<Sample: PlaneSample> {
    let plane: UnsafeMutablePointer<Sample>
    let stride: Int
    let width: Int
    let height: Int

    @inline(__always)
    func at(_ u: Int, _ v: Int) -> Int {
        let (ui, vi) = (u >> 16, v >> 16)
        let (fx, fy) = ((u >> 8) & 0xFF, (v >> 8) & 0xFF)
        let x0 = Swift.min(Swift.max(ui, 0), width - 1)
        let x1 = Swift.min(Swift.max(ui + 1, 0), width - 1)
        let top = plane + Swift.min(Swift.max(vi, 0), height - 1) * stride
        let bottom = plane + Swift.min(Swift.max(vi + 1, 0), height - 1) * stride
        let upper = Int(top[x0]) * (256 - fx) + Int(top[x1]) * fx
        let lower = Int(bottom[x0]) * (256 - fx) + Int(bottom[x1]) * fx
        return (upper * (256 - fy) + lower * fy + 32768) >> 16
    }
}

/// Bilinear reads of the layer's opacity: its alpha plane (or opaque) inside, zero outside.
private struct Coverage<Sample: PlaneSample> {
    let alpha: UnsafeMutablePointer<Sample>?
    let stride: Int
    let width: Int
    let height: Int

    @inline(__always)
    private func value(_ x: Int, _ y: Int) -> Int {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        guard let alpha else { return 255 }
        return Int(Sample.weight(alpha[y * stride + x]))
    }

    /// The columns of `from ..< to` whose position, starting at (u, v) and moving (du, dv) per
    /// column, can have coverage: a superset (one column wider each side) of where `at` is not 0.
    func span(u: Int, v: Int, du: Int, dv: Int, from: Int, to: Int) -> Range<Int> {
        var first = 0.0
        var last = Double(to - from - 1)
        for (start, step, limit) in [(u, du, width), (v, dv, height)] {
            // -1 <= position >> 16 < limit, that is -65536 <= position <= limit * 65536 - 1.
            let (low, high) = (Double(-65536 - start), Double(limit * 65536 - 1 - start))
            if step == 0 {
                if low > 0 || high < 0 { return from..<from }
                continue
            }
            let (a, b) = (low / Double(step), high / Double(step))
            first = Swift.max(first, Swift.min(a, b).rounded(.up) - 1)
            last = Swift.min(last, Swift.max(a, b).rounded(.down) + 1)
        }
        guard first <= last else { return from..<from }
        return from + Int(first)..<from + Int(last) + 1
    }

    @inline(__always)
    func at(_ u: Int, _ v: Int) -> Int {
        let (ui, vi) = (u >> 16, v >> 16)
        if ui < -1 || vi < -1 || ui >= width || vi >= height { return 0 }
        let (fx, fy) = ((u >> 8) & 0xFF, (v >> 8) & 0xFF)
        let upper = value(ui, vi) * (256 - fx) + value(ui + 1, vi) * fx
        let lower = value(ui, vi + 1) * (256 - fx) + value(ui + 1, vi + 1) * fx
        return (upper * (256 - fy) + lower * fy + 32768) >> 16
    }
}
