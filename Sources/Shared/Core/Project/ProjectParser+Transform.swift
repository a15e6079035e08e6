/// The transform keys an item or a track may carry: `position`, `scale`, `rotation`, `anchor`.
extension ProjectParser {
    func parseTransform(_ object: JSONObjectReader) -> Transform? {
        var transform = Transform()
        let position = object.optional("position", default: transform.position) {
            parseAnimated($0, $1, $2) { parsePoint($0, $1, $2, what: "[x, y] in fractions of the canvas") }
        }
        let scale = object.optional("scale", default: transform.scale) {
            parseAnimated($0, $1, $2, parse: parseScale)
        }
        let rotation = object.optional("rotation", default: transform.rotation) {
            parseAnimated($0, $1, $2, parse: parseDegrees)
        }
        let anchor = object.optional("anchor", default: transform.anchor) {
            parseAnimated($0, $1, $2) { parsePoint($0, $1, $2, what: "[x, y] in fractions of the layer") }
        }
        guard let position, let scale, let rotation, let anchor else { return nil }
        transform.position = position
        transform.scale = scale
        transform.rotation = rotation
        transform.anchor = anchor
        return transform
    }

    private func parsePoint(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, what: String) -> Point? {
        guard case .array(let elements) = value, elements.count == 2 else {
            log.add(path, "expected \(what), got \(JSONField.describe(value))")
            return nil
        }
        let numbers = elements.enumerated().compactMap { JSONField.number($1, "\(path)[\($0)]", log) }
        guard numbers.count == 2 else { return nil }
        guard numbers.allSatisfy({ abs($0) <= 1000 }) else {
            log.add(path, "values must be from -1000 to 1000")
            return nil
        }
        return Point(x: numbers[0], y: numbers[1])
    }

    /// One factor for both axes, or [x, y]; negative factors mirror, zero hides the layer.
    private func parseScale(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Point? {
        let point: Point?
        if case .number = value {
            point = JSONField.number(value, path, log).map { Point(x: $0, y: $0) }
        } else {
            point = parsePoint(value, path, log, what: "a factor or [x, y] factors")
        }
        if let point, abs(point.x) > 64 || abs(point.y) > 64 {
            log.add(path, "factors must be from -64 to 64 (got [\(point.x), \(point.y)])")
            return nil
        }
        return point
    }
}
