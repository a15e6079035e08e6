/// One coloured layer of a generated picture: coverage (0...255 per pixel, row after row) of a
/// colour at an opacity, moved by a whole-pixel offset.
public struct PaintLayer {
    public var coverage: [UInt8]
    public var color: YUVColor
    public var opacity: Double
    public var offset: (x: Int, y: Int)

    public init(coverage: [UInt8], color: YUVColor, opacity: Double = 1, offset: (x: Int, y: Int) = (0, 0)) {
        self.coverage = coverage
        self.color = color
        self.opacity = opacity
        self.offset = offset
    }
}

extension Picture {
    /// A transparent picture with `layers` stacked bottom to top ("over", straight alpha):
    /// colour where they cover it, alpha from their coverage. A chroma sample takes the mean
    /// coverage of its four luma pixels.
    public static func painted(width: Int, height: Int, layers: [PaintLayer]) -> Picture {
        let picture = Picture(width: width, height: height, hasAlpha: true)
        var alpha = [Double](repeating: 0, count: width * height)
        var luma = [Double](repeating: 0, count: width * height)
        let (chromaWidth, chromaHeight) = (width / 2, height / 2)
        var chromaAlpha = [Double](repeating: 0, count: chromaWidth * chromaHeight)
        var blue = [Double](repeating: 0, count: chromaWidth * chromaHeight)
        var red = [Double](repeating: 0, count: chromaWidth * chromaHeight)
        for layer in layers {
            func covered(_ x: Int, _ y: Int) -> Double {
                let (sx, sy) = (x - layer.offset.x, y - layer.offset.y)
                guard sx >= 0, sy >= 0, sx < width, sy < height else { return 0 }
                return Double(layer.coverage[sy * width + sx]) / 255 * layer.opacity
            }
            // Premultiplied "over": value = colour * a + value * (1 - a).
            for y in 0..<height {
                for x in 0..<width {
                    let a = covered(x, y)
                    guard a > 0 else { continue }
                    let index = y * width + x
                    luma[index] = Double(layer.color.y) * a + luma[index] * (1 - a)
                    alpha[index] = a + alpha[index] * (1 - a)
                }
            }
            for cy in 0..<chromaHeight {
                for cx in 0..<chromaWidth {
                    let a =
                        (covered(2 * cx, 2 * cy) + covered(2 * cx + 1, 2 * cy) + covered(2 * cx, 2 * cy + 1)
                            + covered(2 * cx + 1, 2 * cy + 1)) / 4
                    guard a > 0 else { continue }
                    let index = cy * chromaWidth + cx
                    blue[index] = Double(layer.color.u) * a + blue[index] * (1 - a)
                    red[index] = Double(layer.color.v) * a + red[index] * (1 - a)
                    chromaAlpha[index] = a + chromaAlpha[index] * (1 - a)
                }
            }
        }
        let target = picture.view(as: UInt8.self)
        func straight(_ value: Double, _ a: Double, _ empty: UInt8) -> UInt8 {
            a > 0 ? UInt8(Swift.max(0, Swift.min(255, (value / a).rounded()))) : empty
        }
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                target.y[y * target.lumaStride + x] = straight(luma[index], alpha[index], 16)
                target.a![y * target.alphaStride + x] = UInt8((alpha[index] * 255).rounded())
            }
        }
        for cy in 0..<chromaHeight {
            for cx in 0..<chromaWidth {
                let index = cy * chromaWidth + cx
                target.u[cy * target.chromaStride + cx] = straight(blue[index], chromaAlpha[index], 128)
                target.v[cy * target.chromaStride + cx] = straight(red[index], chromaAlpha[index], 128)
            }
        }
        return picture
    }
}
