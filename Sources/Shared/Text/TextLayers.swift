/// A title rasterized to coverage masks (0...255, one byte per pixel, row after row) for a
/// picture of `width` x `height`: what the compositor colours and stacks.
public struct TextLayers: Sendable {
    public var width: Int
    public var height: Int
    /// The glyphs.
    public var fill: [UInt8]
    /// The glyphs stroked `outline.width` on both sides; nil without an outline.
    public var outline: [UInt8]?
    /// The background box; nil without one.
    public var box: [UInt8]?
}

/// Text could not be rendered: the font would not load, or a FreeType or HarfBuzz call failed.
public struct TextError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
