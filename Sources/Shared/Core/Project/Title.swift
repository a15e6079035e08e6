/// Text drawn in the item's frame: shaped with HarfBuzz and rasterized with FreeType from one
/// font file, wrapped to the frame's width. Sizes are in output pixels.
public struct Title: Sendable, Codable, Hashable {
    public enum Alignment: String, Sendable, Codable, Hashable, CaseIterable {
        case left, center, right
    }

    public enum VerticalAlignment: String, Sendable, Codable, Hashable, CaseIterable {
        case top, middle, bottom
    }

    /// A coloured edge around the glyphs.
    public struct Outline: Sendable, Codable, Hashable {
        public var width: Double
        public var color: RGBColor
    }

    /// A copy of the text (and its outline) behind it, moved by an offset in pixels.
    public struct Shadow: Sendable, Codable, Hashable {
        public var x: Double
        public var y: Double
        public var color: RGBColor
        public var opacity: Double
    }

    /// A box behind the text block, `padding` pixels larger on every side.
    public struct Background: Sendable, Codable, Hashable {
        public var color: RGBColor
        public var opacity: Double
        public var padding: Double
    }

    public var text: String
    /// A font file (absolute once parsed) or a fontconfig name such as "DejaVu Sans:bold".
    public var font: String
    /// The em size in pixels.
    public var size: Double
    public var color: RGBColor
    public var alignment: Alignment
    public var verticalAlignment: VerticalAlignment
    /// Multiplies the font's own line height.
    public var lineSpacing: Double
    public var outline: Outline?
    public var shadow: Shadow?
    public var background: Background?

    public init(text: String, font: String, size: Double) {
        self.text = text
        self.font = font
        self.size = size
        color = RGBColor(red: 255, green: 255, blue: 255)
        alignment = .center
        verticalAlignment = .middle
        lineSpacing = 1
    }

    /// Whether `font` names a file rather than a fontconfig pattern.
    public static func isFontFile(_ font: String) -> Bool {
        font.contains("/") || [".ttf", ".otf", ".ttc", ".pfb"].contains { font.lowercased().hasSuffix($0) }
    }
}
