/// A project used as a template: its root `fields` declares named values (`"TITLE": {"type":
/// "string", "default": "Hello"}`), and `{{ TITLE }}` in any string of the project stands for
/// one. A string that is a placeholder alone takes the value with its type (`"opacity": "{{
/// LEVEL }}"` becomes a number); one inside other text takes the value's text. A project with
/// no `fields` is no template: its braces are text.
public struct TemplateFields: Sendable {
    public enum FieldType: String, Sendable, CaseIterable {
        case string, number, integer, boolean
    }

    public struct Field: Sendable, Equatable {
        public var name: String
        public var type: FieldType
        /// Nil: every render must give it.
        public var defaultValue: JSONValue?
        public var description: String?
    }

    /// A value to merge: typed JSON (`--merge FILE`, the API), or text to read as the field's
    /// type (a CSV cell, `--set NAME=VALUE`).
    public enum Value: Sendable, Equatable {
        case json(JSONValue)
        case text(String)
    }

    /// In declaration order.
    public let fields: [Field]

    /// The declarations of `document`'s root `fields`; nil when it has none. Problems are
    /// reported by their path (`fields.TITLE.type`).
    public static func declared(in document: JSONValue) throws -> TemplateFields? {
        guard case .object(let root) = document, let declared = root.first(where: { $0.key == "fields" })?.value
        else { return nil }
        let log = DiagnosticLog()
        guard case .object(let members) = declared else {
            log.add("fields", "expected an object of field declarations, got \(declared.kindDescription)")
            throw ProjectError(file: "", diagnostics: log.diagnostics)
        }
        var fields: [Field] = []
        for (name, value) in members {
            let path = "fields.\(name)"
            guard isName(name) else {
                log.add(path, "a field name is a letter or _ then letters, digits or _ (got \"\(name)\")")
                continue
            }
            guard let reader = JSONObjectReader(value, path: path, log: log) else { continue }
            let type = reader.required("type", JSONField.choice(FieldType.self))
            let description = reader.optional("description", default: String?.none) {
                JSONField.string($0, $1, $2).map { Optional($0) }
            }
            let defaultValue = reader.raw("default")
            reader.rejectUnknownKeys()
            guard let type, let description else { continue }
            var field = Field(name: name, type: type, defaultValue: nil, description: description)
            if let defaultValue {
                switch field.typed(.json(defaultValue)) {
                case .success(let typed): field.defaultValue = typed
                case .failure(let problem): log.add("\(path).default", problem.message)
                }
            }
            fields.append(field)
        }
        guard log.isEmpty else { throw ProjectError(file: "", diagnostics: log.diagnostics) }
        return TemplateFields(fields: fields)
    }

    /// `document` with every placeholder replaced. `values` are named by field; their problems
    /// are reported under `valuesPath` (`merge.TITLE`, `row 7.TITLE`), the placeholders' by
    /// their path in the project.
    public func merge(_ document: JSONValue, values: [String: Value], valuesPath: String) throws -> JSONValue {
        let log = DiagnosticLog()
        let names = fields.map(\.name)
        var resolved: [String: JSONValue] = [:]
        func at(_ name: String) -> String { valuesPath.isEmpty ? name : "\(valuesPath).\(name)" }
        for name in values.keys.sorted() where !names.contains(name) {
            let hint = closestWord(to: name, in: names).map { "; did you mean \"\($0)\"?" } ?? ""
            let declared = names.isEmpty ? "none" : names.joined(separator: ", ")
            log.add(at(name), "no such field in the template (fields: \(declared))\(hint)")
        }
        for field in fields {
            if let value = values[field.name] {
                switch field.typed(value) {
                case .success(let typed): resolved[field.name] = typed
                case .failure(let problem): log.add(at(field.name), problem.message)
                }
            } else if let fallback = field.defaultValue {
                resolved[field.name] = fallback
            }
        }
        let merged = substitute(document, path: "", resolved: resolved, given: values, log: log)
        guard log.isEmpty else { throw ProjectError(file: "", diagnostics: log.diagnostics) }
        return merged
    }

    private func substitute(
        _ value: JSONValue, path: String, resolved: [String: JSONValue], given: [String: Value], log: DiagnosticLog
    ) -> JSONValue {
        switch value {
        case .string(let text):
            return substitute(text, path: path, resolved: resolved, given: given, log: log)
        case .array(let elements):
            return .array(
                elements.enumerated().map {
                    substitute($1, path: "\(path)[\($0)]", resolved: resolved, given: given, log: log)
                })
        case .object(let members):
            return .object(
                members.map { member in
                    // The declarations stay as written: they document what was merged.
                    guard !(path.isEmpty && member.key == "fields") else { return member }
                    let inner = path.isEmpty ? member.key : "\(path).\(member.key)"
                    return (
                        member.key, substitute(member.value, path: inner, resolved: resolved, given: given, log: log)
                    )
                })
        default:
            return value
        }
    }

    private func substitute(
        _ text: String, path: String, resolved: [String: JSONValue], given: [String: Value], log: DiagnosticLog
    ) -> JSONValue {
        let pieces = Placeholder.split(text)
        guard pieces.contains(where: { if case .field = $0 { true } else { false } }) else { return .string(text) }
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let literal):
                out += literal
            case .field(let name):
                guard fields.contains(where: { $0.name == name }) else {
                    let hint = closestWord(to: name, in: fields.map(\.name)).map { "; did you mean \"\($0)\"?" } ?? ""
                    log.add(path, "{{ \(name) }} names no field declared under fields\(hint)")
                    return .string(text)
                }
                guard let value = resolved[name] else {
                    // A value given of the wrong type is reported once, where it was given.
                    if given[name] != nil { return .string(text) }
                    log.add(path, "{{ \(name) }} has no value: give one (merge values, a CSV column) or a default")
                    return .string(text)
                }
                if pieces.count == 1 { return value }
                out += Self.text(of: value)
            }
        }
        return .string(out)
    }

    private static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text), .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        default: return ""
        }
    }

    /// A letter or `_`, then letters, digits or `_`, in ASCII: a name that reads the same in a
    /// CSV header, a shell's `--set` and a JSON key.
    static func isName(_ name: String) -> Bool {
        func letter(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        guard let first = name.unicodeScalars.first, letter(first) else { return false }
        return name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}

extension TemplateFields.Field {
    struct Problem: Error { let message: String }

    /// `value` as this field's type: JSON must already be of it (an integer has no fraction);
    /// text is read as it.
    func typed(_ value: TemplateFields.Value) -> Result<JSONValue, Problem> {
        switch (type, value) {
        case (.string, .json(.string(let text))), (.string, .text(let text)):
            return .success(.string(text))
        case (.number, .json(.number(let text))):
            return .success(.number(text))
        case (.integer, .json(.number(let text))) where Int64(text) != nil:
            return .success(.number(text))
        case (.boolean, .json(.bool(let flag))):
            return .success(.bool(flag))
        case (.number, .text(let text)):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let number = Double(trimmed), number.isFinite, (try? JSONParser.parse(Array(trimmed.utf8))) != nil
            else { return .failure(Problem(message: "expected a number for \(name), got \"\(text)\"")) }
            return .success(.number(trimmed))
        case (.integer, .text(let text)):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let number = Int64(trimmed) else {
                return .failure(Problem(message: "expected an integer for \(name), got \"\(text)\""))
            }
            return .success(.number(String(number)))
        case (.boolean, .text(let text)):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes", "1": return .success(.bool(true))
            case "false", "no", "0": return .success(.bool(false))
            default: return .failure(Problem(message: "expected true or false for \(name), got \"\(text)\""))
            }
        case (_, .json(let other)):
            let article = type == .integer ? "an" : "a"
            return .failure(
                Problem(message: "expected \(article) \(type.rawValue) for \(name), got \(other.kindDescription)"))
        }
    }
}

extension TemplateFields {
    /// The project text of `data` with its fields merged from `values`; nil when the document
    /// is no template and no values were given (the text is used as written). A document that
    /// is not JSON is left to the parser to report.
    public static func mergedText(
        _ data: [UInt8], values: [String: Value], valuesPath: String, file: String
    ) throws -> String? {
        // Every project is loaded through here: one without the word is no template, and is
        // not parsed a second time.
        guard !values.isEmpty || data.firstRange(of: Array("\"fields\"".utf8)) != nil else { return nil }
        guard let document = try? JSONParser.parse(data) else { return nil }
        do {
            guard let template = try declared(in: document) else {
                guard values.isEmpty else {
                    throw ProjectError(
                        file: file,
                        diagnostics: [
                            Diagnostic(
                                path: "fields",
                                message: "this project declares no fields, so it takes no merge values "
                                    + "(declare each under fields, e.g. \"TITLE\": {\"type\": \"string\"})")
                        ])
                }
                return nil
            }
            return JSONWriter.pretty(try template.merge(document, values: values, valuesPath: valuesPath))
        } catch var error as ProjectError {
            error.file = file
            throw error
        }
    }
}
