/// A 3D LUT as a step: tetrahedral interpolation with ffmpeg's lut3d arithmetic.
///
/// An input `v` (0–1) is placed on the grid at `(v − DOMAIN_MIN) × (size − 1) / (DOMAIN_MAX −
/// DOMAIN_MIN)`, clamped to the grid; the cell's corners are `floor` and `floor + 1` (the last
/// point repeated at the top), and the result is the tetrahedral mix of four corners picked by
/// the order of the three fractions: lut3d's `interp_tetrahedral` (after FilmLight's Truelight
/// paper), float for float and in its order of operations, so the same input gives the same
/// float. lut3d ignores DOMAIN_MIN and a DOMAIN_MAX below 1; with DOMAIN_MIN 0 and DOMAIN_MAX of
/// 1 or more (the usual files) the two agree exactly.
struct LUTStep: Sendable {
    let size: Int
    let lutMax: Float
    let values: [Float]
    let minimum: (Float, Float, Float)
    let factor: (Float, Float, Float)

    init(_ lut: CubeLUT) {
        size = lut.size
        lutMax = Float(lut.size - 1)
        values = lut.values
        minimum = (lut.domainMin[0], lut.domainMin[1], lut.domainMin[2])
        // As lut3d: the reciprocal in double, kept as a float, times the grid's last index.
        func scale(_ channel: Int) -> Float {
            Float(1.0 / Double(lut.domainMax[channel] - lut.domainMin[channel])) * Float(lut.size - 1)
        }
        factor = (scale(0), scale(1), scale(2))
    }

    @inline(__always)
    private func clamped(_ value: Float) -> Float { value < 0 ? 0 : value > lutMax ? lutMax : value }

    /// Looks up `count` pixels of three float rows in place.
    func apply(
        _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
        count: Int
    ) {
        values.withUnsafeBufferPointer { lut in
            for index in 0..<count {
                let s = (
                    clamped((r[index] - minimum.0) * factor.0), clamped((g[index] - minimum.1) * factor.1),
                    clamped((b[index] - minimum.2) * factor.2)
                )
                (r[index], g[index], b[index]) = tetrahedral(s, lut)
            }
        }
    }

    @inline(__always)
    private func tetrahedral(_ s: (Float, Float, Float), _ lut: UnsafeBufferPointer<Float>) -> (Float, Float, Float) {
        let last = size - 1
        let prev = (Int(s.0), Int(s.1), Int(s.2))
        let next = (Swift.min(prev.0 + 1, last), Swift.min(prev.1 + 1, last), Swift.min(prev.2 + 1, last))
        let d = (s.0 - Float(prev.0), s.1 - Float(prev.1), s.2 - Float(prev.2))
        let size2 = size * size
        @inline(__always) func corner(_ r: Int, _ g: Int, _ b: Int) -> (Float, Float, Float) {
            let at = (r * size2 + g * size + b) * 3
            return (lut[at], lut[at + 1], lut[at + 2])
        }
        // Four corners and their weights, as lut3d picks them.
        @inline(__always) func mix(
            _ w0: Float, _ c0: (Float, Float, Float), _ w1: Float, _ c1: (Float, Float, Float), _ w2: Float,
            _ c2: (Float, Float, Float), _ w3: Float, _ c3: (Float, Float, Float)
        ) -> (Float, Float, Float) {
            (
                w0 * c0.0 + w1 * c1.0 + w2 * c2.0 + w3 * c3.0, w0 * c0.1 + w1 * c1.1 + w2 * c2.1 + w3 * c3.1,
                w0 * c0.2 + w1 * c1.2 + w2 * c2.2 + w3 * c3.2
            )
        }
        let c000 = corner(prev.0, prev.1, prev.2)
        let c111 = corner(next.0, next.1, next.2)
        if d.0 > d.1 {
            if d.1 > d.2 {
                return mix(
                    1 - d.0, c000, d.0 - d.1, corner(next.0, prev.1, prev.2), d.1 - d.2, corner(next.0, next.1, prev.2),
                    d.2, c111)
            } else if d.0 > d.2 {
                return mix(
                    1 - d.0, c000, d.0 - d.2, corner(next.0, prev.1, prev.2), d.2 - d.1, corner(next.0, prev.1, next.2),
                    d.1, c111)
            } else {
                return mix(
                    1 - d.2, c000, d.2 - d.0, corner(prev.0, prev.1, next.2), d.0 - d.1, corner(next.0, prev.1, next.2),
                    d.1, c111)
            }
        } else {
            if d.2 > d.1 {
                return mix(
                    1 - d.2, c000, d.2 - d.1, corner(prev.0, prev.1, next.2), d.1 - d.0, corner(prev.0, next.1, next.2),
                    d.0, c111)
            } else if d.2 > d.0 {
                return mix(
                    1 - d.1, c000, d.1 - d.2, corner(prev.0, next.1, prev.2), d.2 - d.0, corner(prev.0, next.1, next.2),
                    d.0, c111)
            } else {
                return mix(
                    1 - d.1, c000, d.1 - d.0, corner(prev.0, next.1, prev.2), d.0 - d.2, corner(next.0, next.1, prev.2),
                    d.2, c111)
            }
        }
    }
}
