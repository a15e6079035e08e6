/// What transitions do to whole pictures: copy one, or mix two with a weight per column or row.
extension Picture {
    /// Copies `other`'s Y, U and V planes (same size) into this picture.
    public func copy(from other: Picture) {
        precondition(other.width == width && other.height == height, "copy needs pictures of one size")
        Blend.copy(other.view(), to: view(), width: width, height: height)
    }

    /// Sets this picture to `a` and `b` mixed: `weights[i]` (0...255) is `b`'s share in column i,
    /// or in row i when `alongRows`. A chroma sample takes the mean weight of its two columns or
    /// rows. All three pictures have one size.
    public func mix(_ a: Picture, _ b: Picture, weights: [UInt8], alongRows: Bool) {
        precondition(weights.count == (alongRows ? height : width), "one weight per column or row")
        let (first, second, target) = (a.view(), b.view(), view())
        func plane(
            _ top: UnsafeMutablePointer<UInt8>, _ bottom: UnsafeMutablePointer<UInt8>,
            _ out: UnsafeMutablePointer<UInt8>, stride: Int, outStride: Int, columns: Int, rows: Int, step: Int
        ) {
            for row in 0..<rows {
                let (x, y, z) = (top + row * stride, bottom + row * stride, out + row * outStride)
                for column in 0..<columns {
                    let index = alongRows ? row * step : column * step
                    let weight =
                        step == 1
                        ? UInt32(weights[index]) : (UInt32(weights[index]) + UInt32(weights[index + 1]) + 1) / 2
                    z[column] = Blend.mix(UInt32(y[column]), UInt32(x[column]), weight)
                }
            }
        }
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
