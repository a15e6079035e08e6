import Foundation

/// A cue's payload as plain text: markup is dropped (SubRip's `<i>`, `<b>`, `<u>`, `<font>`
/// and `{\an8}`-style overrides; WebVTT's `<c.class>`, `<v Speaker>`, `<ruby>`, `<rt>` and
/// timestamps), entities are resolved. Burned-in captions are drawn in one style, so emphasis
/// would be lost anyway; a player showing the soft stream styles it itself.
enum CaptionText {
    static func plain(_ lines: [Substring]) -> String {
        lines.map { stripped(String($0)) }.joined(separator: "\n")
    }

    private static let entities: [(String, String)] = [
        ("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", "\u{00A0}"), ("&lrm;", "\u{200E}"), ("&rlm;", "\u{200F}"),
        ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&"),
    ]

    private static func stripped(_ line: String) -> String {
        var out = ""
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            // A tag runs to its '>'; a '<' with none after it is text.
            if character == "<", let close = line[index...].firstIndex(of: ">") {
                index = line.index(after: close)
                continue
            }
            // SubRip files from ASS tools carry override blocks such as {\an8} or {\i1}.
            if character == "{", line[line.index(after: index)...].first == "\\",
                let close = line[index...].firstIndex(of: "}")
            {
                index = line.index(after: close)
                continue
            }
            out.append(character)
            index = line.index(after: index)
        }
        for (entity, value) in entities { out = out.replacingOccurrences(of: entity, with: value) }
        return out.trimmingCharacters(in: .whitespaces)
    }
}
