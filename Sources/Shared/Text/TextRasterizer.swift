import CText
import FarmCore
import Foundation

/// Lays out and rasterizes a title: HarfBuzz shapes each paragraph (kerning, ligatures, any
/// script it knows), lines wrap at spaces to the box's width, FreeType draws every glyph
/// unhinted at its exact sub-pixel position (so the result depends on the font file and the
/// libraries, not on the machine), and strokes the outline.
public enum TextRasterizer {
    /// The title in a `width` x `height` box, every size in `title` multiplied by `scale` (the
    /// box may be drawn larger or smaller than the frame it was written for).
    public static func render(_ title: Title, width: Int, height: Int, scale: Double) throws -> TextLayers {
        guard let path = FontResolver.file(for: title.font) else { throw TextError("no font \"\(title.font)\"") }
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { throw TextError("FreeType did not start") }
        defer { FT_Done_FreeType(library) }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else {
            throw TextError("\(path) is not a font FreeType can read")
        }
        defer { FT_Done_Face(face) }
        let pixels = max(1, title.size * scale)
        guard FT_Set_Char_Size(face, 0, FT_F26Dot6((pixels * 64).rounded()), 72, 72) == 0 else {
            throw TextError("\(path) has no size \(pixels) px")
        }
        let font = Font(face: face)
        defer { font.release() }
        let padding = (title.background?.padding ?? 0) * scale
        let lines = font.lines(of: title.text, maxWidth: Double(width) - 2 * padding)
        let metrics = face.pointee.size.pointee.metrics
        let ascender = Double(metrics.ascender) / 64
        let lineHeight = Double(metrics.height) / 64 * title.lineSpacing
        let blockHeight = Double(lines.count) * lineHeight
        let top: Double
        switch title.verticalAlignment {
        case .top: top = padding
        case .middle: top = (Double(height) - blockHeight) / 2
        case .bottom: top = Double(height) - padding - blockHeight
        }
        var layers = TextLayers(width: width, height: height, fill: [UInt8](repeating: 0, count: width * height))
        var canvas = Mask(width: width, height: height)
        var outlineCanvas = title.outline.map { _ in Mask(width: width, height: height) }
        let stroker = try title.outline.map { try Stroker(library: library, width: $0.width * scale) }
        defer { stroker?.release() }
        var left = Double(width)
        var right = 0.0
        for (index, line) in lines.enumerated() {
            let x: Double
            switch title.alignment {
            case .left: x = padding
            case .center: x = (Double(width) - line.width) / 2
            case .right: x = Double(width) - padding - line.width
            }
            left = min(left, x)
            right = max(right, x + line.width)
            let baseline = top + ascender + Double(index) * lineHeight
            for glyph in line.glyphs {
                let origin = (x: x + glyph.x, y: baseline - glyph.y)
                try font.draw(glyph.index, at: origin, into: &canvas, stroker: nil)
                if let stroker, outlineCanvas != nil {
                    try font.draw(glyph.index, at: origin, into: &outlineCanvas!, stroker: stroker)
                }
            }
        }
        layers.fill = canvas.coverage
        layers.outline = outlineCanvas?.coverage
        if title.background != nil, !lines.isEmpty {
            var box = Mask(width: width, height: height)
            box.fillRect(
                x: left - padding, y: top - padding, right: right + padding, bottom: top + blockHeight + padding)
            layers.box = box.coverage
        }
        return layers
    }
}

/// One shaped line: glyph ids with pen offsets from the line's origin, and its advance width.
struct ShapedLine {
    struct Glyph {
        var index: UInt32
        var x: Double
        var y: Double
    }

    var glyphs: [Glyph]
    var width: Double
}

/// A FreeType face with its HarfBuzz font.
final class Font {
    let face: FT_Face
    private let font: OpaquePointer

    init(face: FT_Face) {
        self.face = face
        font = hb_ft_font_create_referenced(face)
        hb_ft_font_set_load_flags(font, Int32(FT_LOAD_NO_HINTING))
    }

    func release() { hb_font_destroy(font) }

    /// Paragraphs (split at newlines) shaped and wrapped greedily at spaces to `maxWidth`.
    func lines(of text: String, maxWidth: Double) -> [ShapedLine] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { wrap(String($0), maxWidth: maxWidth) }
    }

    private func wrap(_ paragraph: String, maxWidth: Double) -> [ShapedLine] {
        let bytes = Array(paragraph.utf8)
        let buffer = hb_buffer_create()
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf8(buffer, paragraph, Int32(bytes.count), 0, Int32(bytes.count))
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
            let positions = hb_buffer_get_glyph_positions(buffer, &count), count > 0
        else { return [ShapedLine(glyphs: [], width: 0)] }
        var glyphs = (0..<Int(count)).map { i in
            let scalar = Self.scalar(in: bytes, at: Int(infos[i].cluster))
            return (
                index: infos[i].codepoint, isSpace: bytes[Int(infos[i].cluster)] == 0x20,
                breaksBefore: scalar.map(Self.isIdeographic) ?? false,
                advance: Double(positions[i].x_advance) / 64, offsetX: Double(positions[i].x_offset) / 64,
                offsetY: Double(positions[i].y_offset) / 64
            )
        }
        // HarfBuzz gives a right-to-left paragraph (Arabic, Hebrew) in visual order: lines are
        // filled in reading order, so the glyphs are taken from the right, and each line is
        // turned back to visual order when it is laid out.
        let rightToLeft = hb_buffer_get_direction(buffer) == HB_DIRECTION_RTL
        if rightToLeft { glyphs.reverse() }
        var lines: [ShapedLine] = []
        var start = 0
        while start < glyphs.count {
            // Take glyphs while they fit; break after the last space that kept the line inside.
            var end = start
            var width = 0.0
            var lastBreak: Int?
            while end < glyphs.count {
                // A space is a break; so is the place before a CJK character, which has none.
                if glyphs[end].isSpace || (glyphs[end].breaksBefore && end > start) { lastBreak = end }
                if width + glyphs[end].advance > maxWidth, end > start, !glyphs[end].isSpace, let lastBreak,
                    lastBreak > start
                {
                    end = lastBreak
                    break
                }
                width += glyphs[end].advance
                end += 1
            }
            // A line's trailing spaces (in reading order) take no room when it is aligned.
            let trailing = glyphs[start..<end].reversed().prefix { $0.isSpace }.count
            let kept = glyphs[start..<(end - trailing)]
            var pen = 0.0
            var line = ShapedLine(glyphs: [], width: 0)
            for glyph in rightToLeft ? Array(kept.reversed()) : Array(kept) {
                line.glyphs.append(.init(index: glyph.index, x: pen + glyph.offsetX, y: glyph.offsetY))
                pen += glyph.advance
            }
            line.width = pen
            lines.append(line)
            start = end
            while start < glyphs.count, glyphs[start].isSpace { start += 1 }
        }
        return lines
    }

    /// The character whose UTF-8 starts at `offset` (a HarfBuzz cluster).
    private static func scalar(in bytes: [UInt8], at offset: Int) -> Unicode.Scalar? {
        var iterator = bytes[offset...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }

    /// Han, kana and Hangul syllables: text written without spaces, broken between characters.
    private static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x2FFFF:
            return true
        default:
            return false
        }
    }

    /// Renders glyph `index` (stroked when `stroker` is given) with its origin at `origin`
    /// (pixels, y down) and adds it into `mask`.
    func draw(_ index: UInt32, at origin: (x: Double, y: Double), into mask: inout Mask, stroker: Stroker?) throws {
        guard FT_Load_Glyph(face, index, Int32(FT_LOAD_NO_HINTING)) == 0 else { throw TextError("glyph \(index)") }
        var glyph: FT_Glyph?
        guard FT_Get_Glyph(face.pointee.glyph, &glyph) == 0, glyph != nil else { throw TextError("glyph \(index)") }
        defer { FT_Done_Glyph(glyph) }
        if let stroker { FT_Glyph_Stroke(&glyph, stroker.handle, 1) }
        let whole = (x: origin.x.rounded(.down), y: origin.y.rounded(.down))
        // FreeType's y points up: a fraction down on screen is a negative shift.
        var shift = FT_Vector(
            x: FT_Pos(((origin.x - whole.x) * 64).rounded()), y: FT_Pos(-((origin.y - whole.y) * 64).rounded()))
        guard FT_Glyph_To_Bitmap(&glyph, FT_RENDER_MODE_NORMAL, &shift, 1) == 0, let rendered = glyph else {
            throw TextError("glyph \(index) did not rasterize")
        }
        let bitmapGlyph = UnsafeMutableRawPointer(rendered).assumingMemoryBound(to: FT_BitmapGlyphRec.self)
        let bitmap = bitmapGlyph.pointee.bitmap
        mask.add(
            bitmap, x: Int(whole.x) + Int(bitmapGlyph.pointee.left), y: Int(whole.y) - Int(bitmapGlyph.pointee.top))
    }
}

/// FreeType's stroker, set to round joins and caps.
final class Stroker {
    let handle: FT_Stroker

    init(library: FT_Library, width: Double) throws {
        var stroker: FT_Stroker?
        guard FT_Stroker_New(library, &stroker) == 0, let stroker else { throw TextError("no stroker") }
        handle = stroker
        FT_Stroker_Set(
            stroker, FT_Fixed((width * 64).rounded()), FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0)
    }

    func release() { FT_Stroker_Done(handle) }
}

/// A coverage mask being drawn.
struct Mask {
    let width: Int
    let height: Int
    var coverage: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        coverage = [UInt8](repeating: 0, count: width * height)
    }

    /// Adds an 8-bit bitmap with its top-left at (x, y), saturating where glyphs overlap.
    mutating func add(_ bitmap: FT_Bitmap, x: Int, y: Int) {
        let (rows, columns, pitch) = (Int(bitmap.rows), Int(bitmap.width), Int(bitmap.pitch))
        guard rows > 0, columns > 0, let buffer = bitmap.buffer else { return }
        for row in 0..<rows where (0..<height).contains(y + row) {
            for column in 0..<columns where (0..<width).contains(x + column) {
                let value = Int(buffer[row * pitch + column])
                guard value > 0 else { continue }
                let index = (y + row) * width + x + column
                coverage[index] = UInt8(min(255, Int(coverage[index]) + value))
            }
        }
    }

    /// Covers the pixels whose centres lie inside the rectangle.
    mutating func fillRect(x: Double, y: Double, right: Double, bottom: Double) {
        let columns = max(0, Int(x.rounded()))..<min(width, Int(right.rounded()))
        for row in max(0, Int(y.rounded()))..<min(height, Int(bottom.rounded())) where !columns.isEmpty {
            for column in columns { coverage[row * width + column] = 255 }
        }
    }
}
