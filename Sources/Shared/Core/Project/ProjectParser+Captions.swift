import Foundation

/// What an asset is when its extension does not say: `media` (probed with FFmpeg) or
/// `captions` (a SubRip or WebVTT file).
enum AssetType: String, CaseIterable {
    case media, captions
}

/// An item's `captions`: how the cues of its caption asset reach the output.
extension ProjectParser {
    /// The placement of an item whose asset is a caption file (nil for any other item, where
    /// `captions` is an error); `valid` is false when a diagnostic was logged.
    func parseCaptionPlacement(
        _ object: JSONObjectReader, content: ItemContent?, assets: [String: Asset]?, log: DiagnosticLog
    )
        -> (placement: CaptionPlacement?, valid: Bool)
    {
        guard case .media(let id) = content, let asset = assets?[id], asset.isCaptions else {
            if object.has("captions") {
                var hint = ""
                if case .media(let id) = content, let asset = assets?[id] {
                    // Known by .srt or .vtt; any other name (.txt, an upload's digest) is media.
                    let name = URL(fileURLWithPath: asset.path).lastPathComponent
                    hint =
                        "; assets.\(id) (\(name)) is read as media: if it is a SubRip or WebVTT file, "
                        + "set \"type\": \"captions\" on it"
                }
                log.add(
                    object.childPath("captions"), "only an item whose asset is a caption file takes captions\(hint)")
                return (nil, false)
            }
            return (nil, true)
        }
        for key in ["pastEnd", "volume", "pan", "preservePitch"] where object.has(key) {
            log.add(object.childPath(key), "a caption file has no sound or pictures; remove \"\(key)\"")
        }
        let defaults = CaptionPlacement(
            asset: id, burnIn: true, soft: false, language: "und", style: CaptionPlacement.defaultStyle,
            safeArea: 0.1)
        guard object.has("captions") else { return (defaults, true) }
        let placement = object.required("captions") { value, path, log -> CaptionPlacement? in
            guard let reader = JSONObjectReader(value, path: path, log: log) else { return nil }
            let burnIn = reader.optional("burnIn", default: true, JSONField.bool)
            let soft = reader.optional("soft", default: false, JSONField.bool)
            let language = reader.optional("language", default: "und") { value, path, log -> String? in
                guard let text = JSONField.string(value, path, log) else { return nil }
                guard text.count == 3, text.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
                    log.add(
                        path,
                        "expected an ISO 639-2 code of three lowercase letters (\"eng\"), got \(JSONField.quote(text))")
                    return nil
                }
                return text
            }
            let safeArea = reader.optional("safeArea", default: 0.1) { value, path, log -> Double? in
                parseNumber(value, path, log, mustBe: "from 0 to 0.4") { (0...0.4).contains($0) }
            }
            let style = reader.optional("style", default: CaptionPlacement.defaultStyle) {
                parseTitle($0, $1, $2, defaults: CaptionPlacement.defaultStyle)
            }
            reader.rejectUnknownKeys()
            if burnIn == false, soft == false {
                log.add(path, "neither burnIn nor soft: the cues would reach no output; set one of them")
                return nil
            }
            guard let burnIn, let soft, let language, let safeArea, let style else { return nil }
            return CaptionPlacement(
                asset: id, burnIn: burnIn, soft: soft, language: language, style: style, safeArea: safeArea)
        }
        return (placement, placement != nil)
    }
}
