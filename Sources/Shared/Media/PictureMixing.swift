/// What transitions do to whole pictures: copy one, or mix two with a weight per column or row.
extension Picture {
    /// Copies `other`'s Y, U and V planes (same size and depth) into this picture.
    public func copy(from other: Picture) {
        precondition(
            other.width == width && other.height == height && other.depth == depth, "copy needs pictures of one shape")
        switch (other.withView { $0 }, withView { $0 }) {
        case (.eight(let source), .eight(let target)): Blend.copy(source, to: target, width: width, height: height)
        case (.ten(let source), .ten(let target)): Blend.copy(source, to: target, width: width, height: height)
        default: preconditionFailure("unreachable: depths checked above")
        }
    }

    /// Sets this picture to `a` and `b` mixed: `weights[i]` (0...255) is `b`'s share in column i,
    /// or in row i when `alongRows`. A chroma sample takes the mean weight of its two columns or
    /// rows. All three pictures have one size and depth.
    public func mix(_ a: Picture, _ b: Picture, weights: [UInt8], alongRows: Bool) {
        precondition(weights.count == (alongRows ? height : width), "one weight per column or row")
        precondition(a.depth == depth && b.depth == depth, "mix needs pictures of one depth")
        if depth == 8 {
            Self.mix(
                a.view(as: UInt8.self), b.view(), into: view(), weights: weights, alongRows: alongRows,
                size: (width, height))
        } else {
            Self.mix(
                a.view(as: UInt16.self), b.view(), into: view(), weights: weights, alongRows: alongRows,
                size: (width, height))
        }
    }

    private static func mix<Sample: PlaneSample>(
        _ first: PlaneSet<Sample>, _ second: PlaneSet<Sample>, into target: PlaneSet<Sample>, weights: [UInt8],
        alongRows: Bool, size: (width: Int, height: Int)
    ) {
        func plane(
            _ top: UnsafeMutablePointer<Sample>, _ bottom: UnsafeMutablePointer<Sample>,
            _ out: UnsafeMutablePointer<Sample>, stride: Int, outStride: Int, columns: Int, rows: Int, step: Int
        ) {
            for row in 0..<rows {
                let (x, y, z) = (top + row * stride, bottom + row * stride, out + row * outStride)
                for column in 0..<columns {
                    let index = alongRows ? row * step : column * step
                    let weight =
                        step == 1
                        ? UInt32(weights[index]) : (UInt32(weights[index]) + UInt32(weights[index + 1]) + 1) / 2
                    z[column] = Sample.mix(UInt32(y[column]), UInt32(x[column]), weight)
                }
            }
        }
        let (width, height) = size
        plane(
            first.y, second.y, target.y, stride: first.lumaStride, outStride: target.lumaStride, columns: width,
            rows: height, step: 1)
        plane(
            first.u, second.u, target.u, stride: first.chromaStride, outStride: target.chromaStride, columns: width / 2,
            rows: height / 2, step: 2)
        plane(
            first.v, second.v, target.v, stride: first.chromaStride, outStride: target.chromaStride, columns: width / 2,
            rows: height / 2, step: 2)
    }
}
