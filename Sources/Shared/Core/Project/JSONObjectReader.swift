/// Reads one JSON object key by key, recording a diagnostic for every wrong type, bad value and
/// unknown key (a typo must never silently do nothing).
final class JSONObjectReader {
    let path: String
    private let members: [(key: String, value: JSONValue)]
    private var used: Set<String> = []
    private let log: DiagnosticLog

    /// Nil (with a diagnostic) when `value` is not an object.
    init?(_ value: JSONValue, path: String, log: DiagnosticLog) {
        guard case .object(let members) = value else {
            log.add(path, "expected an object, got \(value.kindDescription)")
            return nil
        }
        self.path = path
        self.members = members
        self.log = log
    }

    func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether `key` is present, marking it as known: an unknown-key hint lists it even when
    /// it is absent.
    func has(_ key: String) -> Bool {
        used.insert(key)
        return members.contains { $0.key == key }
    }

    /// The raw value for `key`, marking it as known.
    func raw(_ key: String) -> JSONValue? {
        used.insert(key)
        return members.first { $0.key == key }?.value
    }

    func required<T>(_ key: String, _ parse: (JSONValue, String, DiagnosticLog) -> T?) -> T? {
        guard let value = raw(key) else {
            log.add(childPath(key), "is required")
            return nil
        }
        return parse(value, childPath(key), log)
    }

    /// `fallback` when absent; nil only when present and invalid.
    func optional<T>(_ key: String, default fallback: T, _ parse: (JSONValue, String, DiagnosticLog) -> T?) -> T? {
        guard let value = raw(key) else { return fallback }
        return parse(value, childPath(key), log)
    }

    /// Reports keys that no `raw`/`required`/`optional` call asked for.
    func rejectUnknownKeys() {
        let known = Array(used).sorted()
        for (key, _) in members where !used.contains(key) {
            let path = childPath(JSONField.shortened(key))
            if let hint = closestWord(to: key, in: known) {
                log.add(path, "unknown key (did you mean \"\(hint)\"?)")
            } else {
                log.add(path, "unknown key (allowed here: \(known.joined(separator: ", ")))")
            }
        }
    }
}

/// Value parsers shared by the project reader; each records a diagnostic and returns nil on failure.
enum JSONField {
    static func string(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> String? {
        guard case .string(let text) = value else {
            log.add(path, "expected a string, got \(value.kindDescription)")
            return nil
        }
        return text
    }

    static func bool(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Bool? {
        guard case .bool(let flag) = value else {
            log.add(path, "expected true or false, got \(value.kindDescription)")
            return nil
        }
        return flag
    }

    static func integer(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Int? {
        guard case .number(let literal) = value, let number = Int(literal) else {
            log.add(path, "expected a whole number, got \(describe(value))")
            return nil
        }
        return number
    }

    static func number(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Double? {
        guard case .number(let literal) = value, let number = Double(literal), number.isFinite else {
            log.add(path, "expected a number, got \(describe(value))")
            return nil
        }
        return number
    }

    /// A time: a string holding a decimal ("1.5") or a ratio ("1001/30000"), or a JSON number
    /// written as a plain decimal (its literal text is kept). Exact when its reduced denominator
    /// is at most 10^9; finer (a float printed in full, "0.6000000000000001"), the nearest flick
    /// (`TimeGrid`), said once per file.
    static func time(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Rational? {
        guard let text = timeText(value, path, log) else { return nil }
        let outOfRange = "\(quote(text)) is out of range: times run from -\(maximumTime) to \(maximumTime) s"
        // Bounded so that exact arithmetic on project times never leaves 64 bits.
        let range = Rational(-maximumTime)...Rational(maximumTime)
        if let exact = Rational(parsing: text), exact.denominator <= TimeGrid.finestExact {
            guard range.contains(exact) else {
                log.add(path, outOfRange)
                return nil
            }
            return exact
        }
        switch TimeGrid.nearest(parsing: text) {
        case .nearest(let time)? where range.contains(time):
            log.warnOnce(
                "time-grid", path,
                "\(quote(text)) is finer than a time can be held exactly; read as \(time), the nearest flick "
                    + "(1/\(TimeGrid.ticksPerSecond) s)")
            return time
        case .nearest?, .tooLarge?:
            log.add(path, outOfRange)
        case nil:
            log.add(
                path, "\(quote(text)) is not an exact time; write a decimal (\"1.5\") or a ratio (\"1001/30000\")")
        }
        return nil
    }

    /// An exact rate, never rounded: a frame rate on the time grid would be another rate.
    static func rate(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> Rational? {
        guard let text = timeText(value, path, log) else { return nil }
        guard let rate = Rational(parsing: text) else {
            guard TimeGrid.nearest(parsing: text) == nil else {
                log.add(path, finerThanARate(text))
                return nil
            }
            log.add(path, "\(quote(text)) is not an exact rate; write a decimal (\"25\") or a ratio (\"30000/1001\")")
            return nil
        }
        guard rate.denominator <= TimeGrid.finestExact else {
            log.add(path, finerThanARate(text))
            return nil
        }
        return rate
    }

    private static func finerThanARate(_ text: String) -> String {
        "\(quote(text)) is finer than an exact rate holds (a denominator of at most \(TimeGrid.finestExact)); "
            + "write it as a ratio such as \"30000/1001\""
    }

    private static func timeText(_ value: JSONValue, _ path: String, _ log: DiagnosticLog) -> String? {
        switch value {
        case .string(let string): return string
        case .number(let literal): return literal
        default:
            log.add(path, "expected a time such as \"1.5\" or \"1001/30000\", got \(value.kindDescription)")
            return nil
        }
    }

    static func choice<E: RawRepresentable & CaseIterable>(_ type: E.Type) -> (JSONValue, String, DiagnosticLog) -> E?
    where E.RawValue == String {
        return { value, path, log in
            let allowed = E.allCases.map(\.rawValue)
            guard case .string(let text) = value else {
                log.add(path, "expected one of \(allowed.joined(separator: ", ")), got \(value.kindDescription)")
                return nil
            }
            guard let choice = E(rawValue: text) else {
                let hint = closestWord(to: text, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
                log.add(path, "\(quote(text)) is not one of \(allowed.joined(separator: ", "))\(hint)")
                return nil
            }
            return choice
        }
    }

    /// The largest time a project may hold, in seconds (11.6 days).
    static let maximumTime: Int64 = 1_000_000

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .number(let literal): return shortened(literal)
        case .string(let text): return quote(text)
        default: return value.kindDescription
        }
    }

    /// `text` in quotes for a message: on one line (control characters escaped) and at most
    /// 60 characters, so a message never echoes a huge or multi-line value.
    static func quote(_ text: String) -> String { "\"\(shortened(text))\"" }

    static func shortened(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars.prefix(61) {
            escaped += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return text.unicodeScalars.count > 60 ? String(escaped.unicodeScalars.prefix(60)) + "…" : escaped
    }
}
