/// What an item shows: exactly one of `asset` (a media id), `solid` (a colour), `gradient` or
/// `title`.
extension ProjectParser {
    func parseContent(_ object: JSONObjectReader, assets: [String: Asset]?, log: DiagnosticLog) -> ItemContent? {
        let given = ["asset", "solid", "gradient", "title"].filter { object.has($0) }
        guard given.count == 1, let key = given.first else {
            let message =
                given.isEmpty
                ? "needs \"asset\" (a media id), \"solid\" (a colour), \"gradient\" or \"title\""
                : "has \(given.map { "\"\($0)\"" }.joined(separator: " and ")); an item shows exactly one"
            log.add(object.path, message)
            return nil
        }
        switch key {
        case "solid":
            return object.required("solid", parseColor).map { .solid($0) }
        case "gradient":
            return object.required("gradient", parseGradient).map { .gradient($0) }
        case "title":
            return object.required("title") { parseTitle($0, $1, $2) }.map { .title($0) }
        default:
            return object.required("asset") { value, path, log -> ItemContent? in
                guard let id = JSONField.string(value, path, log) else { return nil }
                if let assets, assets[id] == nil {
                    let hint = closestWord(to: id, in: Array(assets.keys)).map { " (did you mean \"\($0)\"?)" } ?? ""
                    log.add(
                        path,
                        "unknown asset \(JSONField.quote(id))\(hint); assets are: "
                            + assets.keys.sorted().prefix(20).map(JSONField.shortened).joined(separator: ", "))
                    return nil
                }
                return .media(id)
            }
        }
    }

    func parseColor(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> RGBColor? {
        guard let text = JSONField.string(value, path, log) else { return nil }
        guard let color = RGBColor(hex: text) else {
            log.add(path, "expected a colour as \"#RRGGBB\", got \(JSONField.quote(text))")
            return nil
        }
        return color
    }

    private func parseGradient(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Gradient? {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let kind = object.optional("kind", default: .linear, JSONField.choice(Gradient.Kind.self))
        let colors = object.required("colors") { value, path, log -> [RGBColor]? in
            guard case .array(let elements) = value, elements.count >= 2 else {
                log.add(path, "expected at least two colours, e.g. [\"#000000\", \"#FFFFFF\"]")
                return nil
            }
            let colors = elements.enumerated().compactMap { parseColor($1, "\(path)[\($0)]", log) }
            return colors.count == elements.count ? colors : nil
        }
        let angle = object.optional("angle", default: 0, parseDegrees)
        object.rejectUnknownKeys()
        if kind == .radial, object.has("angle") {
            log.add(object.childPath("angle"), "a radial gradient has no direction; remove \"angle\"")
        }
        guard let kind, let colors, let angle else { return nil }
        return Gradient(kind: kind, colors: colors, angle: angle)
    }
}
