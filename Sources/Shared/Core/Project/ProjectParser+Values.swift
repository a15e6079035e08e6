/// The values items are made of: keyframed properties, interpolations, unit values, gains and
/// rectangles.
extension ProjectParser {
    func parseAnimated<V>(
        _ value: JSONValue, _ path: String, _ log: DiagnosticLog, parse: (JSONValue, String, DiagnosticLog) -> V?
    ) -> Animated<V>? {
        guard case .object = value else { return parse(value, path, log).map { .constant($0) } }
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let keys = object.required("keys") { value, keysPath, log -> [Keyframe<V>]? in
            guard case .array(let elements) = value, !elements.isEmpty else {
                log.add(keysPath, "expected a non-empty array of [time, value] pairs")
                return nil
            }
            var keys: [Keyframe<V>] = []
            for (index, element) in elements.enumerated() {
                let keyPath = "\(keysPath)[\(index)]"
                guard case .array(let pair) = element, pair.count == 2 || pair.count == 3 else {
                    log.add(keyPath, "expected [time, value] or [time, value, interpolation]")
                    continue
                }
                let interpolation =
                    pair.count == 3 ? parseInterpolation(pair[2], "\(keyPath)[2]", log) : .linear
                guard let time = JSONField.time(pair[0], "\(keyPath)[0]", log),
                    let value = parse(pair[1], "\(keyPath)[1]", log), let interpolation
                else { continue }
                if time.isNegative { log.add("\(keyPath)[0]", "must be >= 0 (got \(time))") }
                if let previous = keys.last, time <= previous.time {
                    log.add("\(keyPath)[0]", "key times must increase (\(time) after \(previous.time))")
                }
                keys.append(Keyframe(time: time, value: value, interpolation: interpolation))
            }
            return keys.count == elements.count ? keys : nil
        }
        object.rejectUnknownKeys()
        return keys.map { .keys($0) }
    }

    /// A key's curve to the next key: a name, or `{"bezier": [x1, y1, x2, y2]}` with x in 0...1.
    func parseInterpolation(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Interpolation? {
        let names = Interpolation.names.map(\.name)
        if case .string(let name) = value {
            if let known = Interpolation.names.first(where: { $0.name == name }) { return known.value }
            let hint = closestWord(to: name, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
            log.add(
                path,
                "unknown interpolation \(JSONField.quote(name))\(hint); use \(names.joined(separator: ", ")) "
                    + "or {\"bezier\": [x1, y1, x2, y2]}"
            )
            return nil
        }
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let points = object.required("bezier") { value, path, log -> [Double]? in
            guard case .array(let elements) = value, elements.count == 4 else {
                log.add(path, "expected [x1, y1, x2, y2], got \(JSONField.describe(value))")
                return nil
            }
            let numbers = elements.enumerated().compactMap { JSONField.number($1, "\(path)[\($0)]", log) }
            guard numbers.count == 4 else { return nil }
            for index in [0, 2] where !(0...1).contains(numbers[index]) {
                log.add("\(path)[\(index)]", "a control point's x must be from 0 to 1 (got \(numbers[index]))")
                return nil
            }
            return numbers
        }
        object.rejectUnknownKeys()
        return points.map { .bezier(x1: $0[0], y1: $0[1], x2: $0[2], y2: $0[3]) }
    }

    /// A number `accepted` allows; otherwise "must be `rule` (got …)" at its path.
    func parseNumber(
        _ value: JSONValue, _ path: String, _ log: DiagnosticLog, mustBe rule: String, _ accepted: (Double) -> Bool
    ) -> Double? {
        guard let number = JSONField.number(value, path, log) else { return nil }
        guard accepted(number) else {
            log.add(path, "must be \(rule) (got \(JSONField.describe(value)))")
            return nil
        }
        return number
    }

    func parseUnitValue(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        parseNumber(value, path, log, mustBe: "from 0 to 1") { (0...1).contains($0) }
    }

    func parseBalance(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        parseNumber(value, path, log, mustBe: "a balance from -1 (left) to 1 (right)") { (-1...1).contains($0) }
    }

    func parseGain(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        parseNumber(value, path, log, mustBe: "a gain from 0 to 16") { (0...16).contains($0) }
    }

    /// An angle in degrees, bounded so that turning it stays exact.
    func parseDegrees(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        guard let degrees = JSONField.number(value, path, log) else { return nil }
        guard abs(degrees) <= 1_000_000 else {
            log.add(path, "must be from -1000000 to 1000000 degrees")
            return nil
        }
        return degrees
    }

    func parseRect(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Rect? {
        guard case .array(let elements) = value, elements.count == 4 else {
            log.add(path, "expected [x, y, width, height] as fractions, got \(JSONField.describe(value))")
            return nil
        }
        let numbers = elements.enumerated().compactMap { JSONField.number($1, "\(path)[\($0)]", log) }
        guard numbers.count == 4 else { return nil }
        guard numbers[2] > 0, numbers[3] > 0 else {
            log.add(path, "width and height must be > 0")
            return nil
        }
        guard numbers.allSatisfy({ abs($0) <= 1000 }) else {
            log.add(path, "fractions must be from -1000 to 1000")
            return nil
        }
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
