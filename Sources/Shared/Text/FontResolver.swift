import CText
import FarmCore
import Foundation

/// Finds the font file a title uses: a path as given, or a fontconfig pattern ("DejaVu Sans",
/// "DejaVu Sans:bold") matched against the fonts installed on this machine.
public enum FontResolver {
    /// Matches made so far: loading fontconfig's configuration and caches costs far more than a
    /// title's paint, which asks again whenever its size changes.
    private static let matches = Locked<[String: String?]>([:])

    /// The file, or nil when the path does not exist or no installed family has the name (a
    /// fontconfig match always returns some font; a different family is not what was asked).
    public static func file(for font: String) -> String? {
        if Title.isFontFile(font) { return FileManager.default.fileExists(atPath: font) ? font : nil }
        return matches.withLock { matches in
            if let known = matches[font] { return known }
            let found = match(font)
            matches[font] = found
            return found
        }
    }

    private static func match(_ font: String) -> String? {
        guard let config = FcInitLoadConfigAndFonts() else { return nil }
        defer { FcConfigDestroy(config) }
        guard let pattern = FcNameParse(font) else { return nil }
        defer { FcPatternDestroy(pattern) }
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let matched = FcFontMatch(config, pattern, &result) else { return nil }
        defer { FcPatternDestroy(matched) }
        var family: UnsafeMutablePointer<FcChar8>?
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(matched, FC_FAMILY, 0, &family) == FcResultMatch,
            FcPatternGetString(matched, FC_FILE, 0, &file) == FcResultMatch, let family, let file
        else { return nil }
        let wanted = font.split(separator: ":", maxSplits: 1).first.map(String.init) ?? font
        let found = String(cString: family)
        guard
            wanted.isEmpty || found.caseInsensitiveCompare(wanted.trimmingCharacters(in: .whitespaces)) == .orderedSame
        else { return nil }
        return String(cString: file)
    }
}
