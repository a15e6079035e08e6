import FarmCore
import Foundation

/// Where a clip's media is: its active reference, the file it names, the asset it becomes.
extension OTIOReader {
    /// The clip's active media reference (`Clip.2`), or its only one (`Clip.1`).
    func mediaReference(of clip: OTIOObject, quiet: Bool = false) -> OTIOObject? {
        var value: JSONValue?
        if clip.schema.version >= 2 {
            var key = "DEFAULT_MEDIA"
            if case .string(let active)? = clip.raw("active_media_reference_key") { key = active }
            if case .object(let references)? = clip.raw("media_references") {
                value = references.first { $0.key == key }?.value
            }
            if value == nil || value == .null {
                if !quiet { note(clip.path, "\(clip.label) has no media reference \"\(key)\"; left as a gap") }
                return nil
            }
            return OTIOObject(value!, path: clip.childPath("media_references.\(key)"), reader: self)
        }
        value = clip.raw("media_reference")
        guard let value, value != .null else {
            if !quiet { note(clip.path, "\(clip.label) has no media reference; left as a gap") }
            return nil
        }
        return OTIOObject(value, path: clip.childPath("media_reference"), reader: self)
    }

    /// The file an `ExternalReference` names, relinked; a problem when it does not exist.
    func mediaPath(_ reference: OTIOObject, clip: OTIOObject) -> String? {
        guard case .string(let url)? = reference.raw("target_url"), !url.isEmpty else {
            problem(reference.childPath("target_url"), "\(clip.label): an ExternalReference needs a target_url")
            return nil
        }
        guard let decoded = OTIOMediaPath.path(fromURL: url) else {
            problem(reference.childPath("target_url"), "\(clip.label): not a file URL or path: \(url)")
            return nil
        }
        let path = OTIOMediaPath.relinked(decoded, with: options.relinks)
        let resolved = path.hasPrefix("/") ? path : (options.mediaRoot ?? folder).appendingPathComponent(path).path
        guard FileManager.default.fileExists(atPath: resolved) else {
            let hint =
                path == decoded
                ? "; --relink PREFIX=DIR maps another machine's folders here" : " (relinked from \(decoded))"
            problem(reference.childPath("target_url"), "\(clip.label): media file not found: \(resolved)\(hint)")
            return nil
        }
        return options.absolutePaths ? resolved : path
    }

    func assetID(for path: String) -> String {
        if let known = assets.first(where: { $0.path == path }) { return known.id }
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let stem = base.isEmpty ? "media" : base
        var id = stem
        var number = 2
        while assets.contains(where: { $0.id == id }) {
            id = "\(stem)-\(number)"
            number += 1
        }
        assets.append((id, path))
        return id
    }

    /// A solid colour generator's colour as "#RRGGBB". Its kind names a solid, a fill or a
    /// colour (`SolidColor` from Kdenlive's adapter, toucan's `toucan:Fill`, Resolve's
    /// `SolidColor`); its `color` parameter is "#RRGGBB" or "0xRRGGBB", each optionally with an
    /// alpha byte after (MLT writes "0x2a3158ff"), or r, g, b fractions as an object or an array
    /// (`[1.0, 0.0, 0.0, 1.0]`). Alpha is not drawn: a generator is opaque.
    func solidColor(_ reference: OTIOObject) -> String? {
        guard case .string(let kind)? = reference.raw("generator_kind"),
            ["solid", "fill", "color", "colour"].contains(where: kind.lowercased().contains),
            case .object(let parameters)? = reference.raw("parameters"),
            let color = parameters.first(where: { ["color", "colour"].contains($0.key.lowercased()) })?.value
        else { return nil }
        var fractions: [Rational] = []
        switch color {
        case .string(let text):
            let prefix = text.hasPrefix("#") ? 1 : text.lowercased().hasPrefix("0x") ? 2 : text.count
            let hex = text.dropFirst(prefix)
            guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit) else { return nil }
            return "#" + hex.prefix(6).uppercased()
        case .object(let channels):
            fractions = ["r", "g", "b"].compactMap { key in
                channels.first { $0.key == key }.flatMap { OTIOTime.number($0.value) }
            }
        case .array(let channels):
            fractions = channels.prefix(3).compactMap(OTIOTime.number)
        default:
            return nil
        }
        guard fractions.count == 3 else { return nil }
        return "#" + fractions.map { String(format: "%02X", Int(min(max($0.seconds, 0), 1) * 255 + 0.5)) }.joined()
    }
}
