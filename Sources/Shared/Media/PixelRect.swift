/// A rectangle in whole pixels.
public struct PixelRect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of this rectangle inside a `canvasWidth` x `canvasHeight` canvas; nil if none.
    public func intersection(width canvasWidth: Int, height canvasHeight: Int) -> PixelRect? {
        let x0 = Swift.max(x, 0)
        let y0 = Swift.max(y, 0)
        let x1 = Swift.min(x + width, canvasWidth)
        let y1 = Swift.min(y + height, canvasHeight)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
