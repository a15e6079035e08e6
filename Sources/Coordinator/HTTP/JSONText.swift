import FarmCore

/// A JSON value from a document (a template's project, a field's default) inside an API
/// answer, written as the value itself: numbers as numbers (integers stay integers), objects as
/// objects, their keys in the order the answer's encoder gives them (the API's sorts them).
package struct JSONText: Encodable, Sendable {
    let value: JSONValue

    package init(_ value: JSONValue) {
        self.value = value
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package func encode(to encoder: Encoder) throws {
        switch value {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try container.encode(integer)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(JSONText(element)) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, member) in members { try container.encode(JSONText(member), forKey: Key(stringValue: key)) }
        }
    }
}
