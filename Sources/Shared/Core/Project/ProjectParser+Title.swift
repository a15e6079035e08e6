import Foundation

/// An item's `title`: text, font and styling.
extension ProjectParser {
    /// A title, or with `defaults` a caption style: every key but `text` (which it refuses),
    /// absent ones taken from `defaults`.
    func parseTitle(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, defaults: Title? = nil) -> Title? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let base = defaults ?? Title(text: "", font: "DejaVu Sans", size: 48)
        let text = defaults == nil ? object.required("text", JSONField.string) : " "
        let font = object.optional("font", default: base.font, JSONField.string)
        let size = object.optional("size", default: base.size) { positive($0, $1, $2, upTo: 2000) }
        let color = object.optional("color", default: base.color, parseColor)
        let alignment = object.optional("align", default: base.alignment, JSONField.choice(Title.Alignment.self))
        let vertical = object.optional(
            "verticalAlign", default: base.verticalAlignment, JSONField.choice(Title.VerticalAlignment.self))
        let lineSpacing = object.optional("lineSpacing", default: base.lineSpacing) { positive($0, $1, $2, upTo: 10) }
        let outline = object.optional("outline", default: base.outline) { value, path, log -> Title.Outline?? in
            guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
            let width = object.optional("width", default: 2) { positive($0, $1, $2, upTo: 100) }
            let color = object.optional("color", default: RGBColor(red: 0, green: 0, blue: 0), parseColor)
            object.rejectUnknownKeys()
            guard let width, let color else { return nil }
            return .some(Title.Outline(width: width, color: color))
        }
        let shadow = object.optional("shadow", default: base.shadow) { value, path, log -> Title.Shadow?? in
            guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
            let x = object.optional("x", default: 3) { positive($0, $1, $2, upTo: 10000, orNegative: true) }
            let y = object.optional("y", default: 3) { positive($0, $1, $2, upTo: 10000, orNegative: true) }
            let color = object.optional("color", default: RGBColor(red: 0, green: 0, blue: 0), parseColor)
            let opacity = object.optional("opacity", default: 0.6, parseUnitValue)
            object.rejectUnknownKeys()
            guard let x, let y, let color, let opacity else { return nil }
            return .some(Title.Shadow(x: x, y: y, color: color, opacity: opacity))
        }
        let background = object.optional("background", default: base.background) {
            value, path, log -> Title.Background?? in
            guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
            let color = object.optional("color", default: RGBColor(red: 0, green: 0, blue: 0), parseColor)
            let opacity = object.optional("opacity", default: 0.6, parseUnitValue)
            let padding = object.optional("padding", default: 12) { value, path, log -> Double? in
                guard let number = JSONField.number(value, path, log) else { return nil }
                guard (0...1000).contains(number) else {
                    log.add(path, "must be from 0 to 1000 pixels (got \(number))")
                    return nil
                }
                return number
            }
            object.rejectUnknownKeys()
            guard let color, let opacity, let padding else { return nil }
            return .some(Title.Background(color: color, opacity: opacity, padding: padding))
        }
        object.rejectUnknownKeys()
        if let text, text.isEmpty { log.add(object.childPath("text"), "is empty") }
        guard let text, !text.isEmpty, let font, let size, let color, let alignment, let vertical, let lineSpacing,
            let outline, let shadow, let background
        else { return nil }
        // A file path is relative to the project's folder, like an asset's.
        let resolvedFont =
            Title.isFontFile(font) && !font.hasPrefix("/")
            ? mediaRoot.appendingPathComponent(font).standardizedFileURL.path : font
        var title = Title(text: defaults == nil ? text : "", font: resolvedFont, size: size)
        title.color = color
        title.alignment = alignment
        title.verticalAlignment = vertical
        title.lineSpacing = lineSpacing
        title.outline = outline
        title.shadow = shadow
        title.background = background
        return title
    }

    /// A number in (0, limit], or in [-limit, limit] when `orNegative`.
    private func positive(
        _ value: JSONValue, _ path: String, _ log: DiagnosticLog, upTo limit: Double, orNegative: Bool = false
    ) -> Double? {
        let rule = orNegative ? "from -\(Int(limit)) to \(Int(limit))" : "> 0 and at most \(Int(limit))"
        return parseNumber(value, path, log, mustBe: rule) { orNegative ? abs($0) <= limit : $0 > 0 && $0 <= limit }
    }
}
