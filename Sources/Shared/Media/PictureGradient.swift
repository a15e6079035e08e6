import FarmCore
import Foundation

extension Picture {
    /// Paints `gradient` over the whole picture (8-bit), opaque. Each sample takes the colour at
    /// its own centre from a 1024-step table, so chroma is as smooth as luma.
    public func paint(_ gradient: Gradient) {
        precondition(depth == 8, "gradients are painted in 8-bit BT.709")
        let table = Self.colorTable(gradient.colors)
        let position = Self.position(of: gradient, width: Double(width), height: Double(height))
        func entry(_ x: Double, _ y: Double) -> YUVColor {
            table[Int((Swift.max(0, Swift.min(1, position(x, y))) * 1023).rounded())]
        }
        let target = view(as: UInt8.self)
        for y in 0..<height {
            let row = target.y + y * target.lumaStride
            for x in 0..<width { row[x] = entry(Double(x) + 0.5, Double(y) + 0.5).y }
        }
        for cy in 0..<height / 2 {
            let rowU = target.u + cy * target.chromaStride
            let rowV = target.v + cy * target.chromaStride
            for cx in 0..<width / 2 {
                let color = entry(Double(2 * cx + 1), Double(2 * cy + 1))
                rowU[cx] = color.u
                rowV[cx] = color.v
            }
        }
        if let alpha = planes[3] { alpha.update(repeating: 255, count: Int(strides[3]) * height) }
    }

    /// Where a point lies along the gradient, 0 at the first colour and 1 at the last: along the
    /// direction across the whole picture (linear), or from the centre to the corners (radial).
    private static func position(of gradient: Gradient, width: Double, height: Double) -> (Double, Double) -> Double {
        let (centreX, centreY) = (width / 2, height / 2)
        switch gradient.kind {
        case .linear:
            let radians = gradient.angle * .pi / 180
            let (dx, dy) = (cos(radians), sin(radians))
            let reach = (abs(dx) * width + abs(dy) * height) / 2
            return { x, y in (((x - centreX) * dx + (y - centreY) * dy) / reach + 1) / 2 }
        case .radial:
            let radius = (centreX * centreX + centreY * centreY).squareRoot()
            return { x, y in ((x - centreX) * (x - centreX) + (y - centreY) * (y - centreY)).squareRoot() / radius }
        }
    }

    /// 1024 colours evenly spaced from the first stop to the last, blended in RGB.
    private static func colorTable(_ stops: [RGBColor]) -> [YUVColor] {
        (0..<1024).map { index in
            let place = Double(index) / 1023 * Double(stops.count - 1)
            let lower = Swift.min(Int(place), stops.count - 2)
            let fraction = place - Double(lower)
            let (a, b) = (stops[lower], stops[lower + 1])
            func blend(_ x: UInt8, _ y: UInt8) -> UInt8 {
                UInt8((Double(x) + (Double(y) - Double(x)) * fraction).rounded())
            }
            return YUVColor(
                RGBColor(red: blend(a.red, b.red), green: blend(a.green, b.green), blue: blend(a.blue, b.blue)))
        }
    }
}
