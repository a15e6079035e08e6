/// A pair of numbers: a position in fractions of the canvas, an anchor in fractions of the
/// layer, or scale factors along x and y.
public struct Point: Sendable, Codable, Hashable, Interpolatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static func interpolate(from a: Point, to b: Point, fraction: Double) -> Point {
        Point(
            x: .interpolate(from: a.x, to: b.x, fraction: fraction),
            y: .interpolate(from: a.y, to: b.y, fraction: fraction))
    }
}

/// Moves, scales and turns a layer once `frame`, `fit` and `crop` have placed it, in this order
/// (docs/project-format.md, "Transforms"): scale about the anchor, rotate clockwise about the
/// anchor, then move by `position`. A track's transform applies after its items', anchored on
/// the canvas.
public struct Transform: Sendable, Codable, Hashable {
    /// Offset in fractions of the canvas width and height.
    public var position: Animated<Point> = .constant(Point(x: 0, y: 0))
    public var scale: Animated<Point> = .constant(Point(x: 1, y: 1))
    /// Degrees, clockwise.
    public var rotation: Animated<Double> = .constant(0)
    /// The fixed point of scale and rotation, in fractions of the placed layer (of the canvas
    /// for a track).
    public var anchor: Animated<Point> = .constant(Point(x: 0.5, y: 0.5))

    public init() {}

    public static let identity = Transform()

    public var isIdentity: Bool { self == .identity }

    /// The map at local time `t` for a layer placed on the box (x, y, width, height) in canvas
    /// pixels, with `canvas` the canvas size.
    public func matrix(
        at t: Rational, box: (x: Double, y: Double, width: Double, height: Double),
        canvas: (width: Double, height: Double)
    ) -> AffineTransform {
        if isIdentity { return .identity }
        let anchor = self.anchor.value(at: t)
        let pivotX = box.x + anchor.x * box.width
        let pivotY = box.y + anchor.y * box.height
        let scale = self.scale.value(at: t)
        let position = self.position.value(at: t)
        return AffineTransform.translation(-pivotX, -pivotY)
            .followed(by: .scale(scale.x, scale.y))
            .followed(by: .rotation(degrees: rotation.value(at: t)))
            .followed(by: .translation(pivotX + position.x * canvas.width, pivotY + position.y * canvas.height))
    }
}
