import Foundation

/// A 2-D affine map in canvas pixels, y pointing down: x' = a·x + c·y + tx, y' = b·x + d·y + ty.
public struct AffineTransform: Sendable, Hashable {
    public var a: Double
    public var b: Double
    public var c: Double
    public var d: Double
    public var tx: Double
    public var ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(_ x: Double, _ y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public static func scale(_ x: Double, _ y: Double) -> AffineTransform {
        AffineTransform(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    /// Clockwise on screen by `degrees`. Multiples of 90° are exact, so a quarter turn stays
    /// axis-aligned and takes the compositor's fast path.
    public static func rotation(degrees: Double) -> AffineTransform {
        let turns = degrees / 90
        let (sine, cosine): (Double, Double)
        if turns == turns.rounded() {
            let quarter = ((Int(turns) % 4) + 4) % 4
            (sine, cosine) = [(0.0, 1.0), (1, 0), (0, -1), (-1, 0)][quarter]
        } else {
            let radians = degrees * .pi / 180
            (sine, cosine) = (sin(radians), cos(radians))
        }
        return AffineTransform(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
    }

    /// This map, then `next`.
    public func followed(by next: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: next.a * a + next.c * b, b: next.b * a + next.d * b,
            c: next.a * c + next.c * d, d: next.b * c + next.d * d,
            tx: next.a * tx + next.c * ty + next.tx, ty: next.b * tx + next.d * ty + next.ty)
    }

    /// Nil when the map collapses the plane (a zero scale).
    public var inverted: AffineTransform? {
        let determinant = a * d - b * c
        guard determinant != 0, determinant.isFinite else { return nil }
        let (ia, ib, ic, id) = (d / determinant, -b / determinant, -c / determinant, a / determinant)
        return AffineTransform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
    }

    public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (a * x + c * y + tx, b * x + d * y + ty)
    }

    /// Only moves and stretches along the axes, without flipping: a rectangle stays an upright
    /// rectangle.
    public var isAxisAligned: Bool { b == 0 && c == 0 && a > 0 && d > 0 }

    /// How much the map stretches lengths along the layer's own x and y axes.
    public var axisStretch: (x: Double, y: Double) { ((a * a + b * b).squareRoot(), (c * c + d * d).squareRoot()) }
}
