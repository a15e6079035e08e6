import CText
import FarmCore
import Foundation

/// A font for a text its own font cannot draw: a caption in Japanese or Arabic under a Latin
/// style font takes, for the whole cue, the font fontconfig matches for the characters missing,
/// as players fall back. Text the font covers keeps it.
extension FontResolver {
    /// `font`'s file when it has every character of `text`, else an installed font's that has
    /// the ones it lacks; nil when `font` itself is not found.
    public static func file(for font: String, covering text: String) -> String? {
        guard let primary = file(for: font) else { return nil }
        // Marks, controls and spaces have no ink of their own; ASCII every text font has.
        let needed = Set(
            text.unicodeScalars.filter {
                $0.value > 0x7F && !$0.properties.isWhitespace
                    && ![.format, .control, .nonspacingMark].contains($0.properties.generalCategory)
            }.map(\.value))
        guard !needed.isEmpty else { return primary }
        return FontCoverage.shared.withLock { $0.fallback(from: primary, for: needed) } ?? primary
    }
}

/// Fontconfig's configuration, loaded once, and what was learned from it; used under a lock.
final class FontCoverage: @unchecked Sendable {
    static let shared = Locked(FontCoverage())

    private let config = FcInitLoadConfigAndFonts()
    /// Per font file, the characters asked about and whether it has them.
    private var has: [String: [UInt32: Bool]] = [:]
    /// Per sorted list of missing characters, the file matched.
    private var matched: [[UInt32]: String?] = [:]

    deinit { if let config { FcConfigDestroy(config) } }

    func fallback(from primary: String, for scalars: Set<UInt32>) -> String? {
        let missing = scalars.filter { !covers(primary, $0) }.sorted()
        guard !missing.isEmpty else { return primary }
        if let known = matched[missing] { return known }
        let found = match(missing)
        matched[missing] = found
        return found
    }

    private func covers(_ file: String, _ scalar: UInt32) -> Bool {
        if let known = has[file]?[scalar] { return known }
        var count: Int32 = 0
        var result = false
        if let pattern = FcFreeTypeQuery(file, 0, nil, &count) {
            var set: OpaquePointer?
            if FcPatternGetCharSet(pattern, FC_CHARSET, 0, &set) == FcResultMatch, let set {
                result = FcCharSetHasChar(set, scalar) != 0
            }
            FcPatternDestroy(pattern)
        }
        has[file, default: [:]][scalar] = result
        return result
    }

    /// The best font fontconfig has for these characters, if it has them all.
    private func match(_ scalars: [UInt32]) -> String? {
        guard let config, let pattern = FcPatternCreate(), let set = FcCharSetCreate() else { return nil }
        defer {
            FcPatternDestroy(pattern)
            FcCharSetDestroy(set)
        }
        for scalar in scalars { FcCharSetAddChar(set, scalar) }
        FcPatternAddCharSet(pattern, FC_CHARSET, set)
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let font = FcFontMatch(config, pattern, &result) else { return nil }
        defer { FcPatternDestroy(font) }
        var file: UnsafeMutablePointer<FcChar8>?
        var fontSet: OpaquePointer?
        guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file,
            FcPatternGetCharSet(font, FC_CHARSET, 0, &fontSet) == FcResultMatch, let fontSet,
            scalars.allSatisfy({ FcCharSetHasChar(fontSet, $0) != 0 })
        else { return nil }
        return String(cString: file)
    }
}
