import FarmCore

/// One OTIO object of a document: its members, its `OTIO_SCHEMA` ("Clip.2" → name "Clip",
/// version 2) and its JSON path in the document, for messages.
struct OTIOObject {
    struct Schema {
        var name: String
        var version: Int
        var text: String { "\(name).\(version)" }
    }

    let path: String
    let schema: Schema
    private let members: [(key: String, value: JSONValue)]

    /// Nil, with a problem, when `value` is not an object with a well-formed `OTIO_SCHEMA`.
    init?(_ value: JSONValue, path: String, reader: OTIOReader) {
        guard case .object(let members) = value else {
            reader.problem(path, "expected an OTIO object, got \(value.kindDescription)")
            return nil
        }
        guard let tag = members.first(where: { $0.key == "OTIO_SCHEMA" })?.value else {
            reader.problem(path, "an object without OTIO_SCHEMA")
            return nil
        }
        guard case .string(let text) = tag, let dot = text.lastIndex(of: "."),
            let version = Int(text[text.index(after: dot)...]), version >= 1, dot > text.startIndex
        else {
            reader.problem(path + ".OTIO_SCHEMA", "expected \"Name.version\", got \(OTIOReader.show(tag))")
            return nil
        }
        self.path = path
        self.members = members
        schema = Schema(name: String(text[..<dot]), version: version)
    }

    func raw(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The object's `name`, "" when it has none.
    var name: String {
        if case .string(let name)? = raw("name") { return name }
        return ""
    }

    /// How messages name it: `Clip "shot_010"`, or just `Gap`.
    var label: String { name.isEmpty ? schema.name : "\(schema.name) \"\(name)\"" }

    /// `enabled`, true when absent.
    var enabled: Bool {
        if case .bool(let value)? = raw("enabled") { return value }
        return true
    }

    /// The array at `key`, empty when absent or null.
    func array(_ key: String) -> [JSONValue] {
        if case .array(let values)? = raw(key) { return values }
        return []
    }
}
