import FarmCore

extension APIError {
    /// A body that is JSON but not what the call takes, in the API's words: the field's JSON
    /// path and the kind of value it takes (`priority`: "expected an integer, got a string").
    /// Swift's own decoding text never reaches the caller.
    package init(_ error: DecodingError, in body: JSONValue) {
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let found = body.value(at: context.codingPath)
            self = .expected(Self.kind(of: type, found: found), got: found, at: context.codingPath)
        case .keyNotFound(let key, let context):
            self.init(.badRequest, "is required", path: JSONValueDecoder.path(context.codingPath + [key]))
        case .dataCorrupted(let context):
            self.init(.badRequest, "is not a value this call takes", path: JSONValueDecoder.path(context.codingPath))
        @unknown default:
            self.init(.badRequest, "the body is not what this call takes")
        }
    }

    /// A 400 for a value of the wrong kind: "expected a string, got 42" at the field's path, or
    /// of the body itself when the path is empty.
    static func expected(_ kind: String, got value: JSONValue?, at codingPath: [any CodingKey]) -> APIError {
        expected(kind, got: value, path: JSONValueDecoder.path(codingPath))
    }

    static func expected(_ kind: String, got value: JSONValue?, path: String) -> APIError {
        let found = value.map(described) ?? "nothing"
        guard !path.isEmpty else { return APIError(.badRequest, "expected \(kind) as the body, got \(found)") }
        return APIError(.badRequest, "expected \(kind), got \(found)", path: path)
    }

    /// A number as written (its first 32 characters), any other value by its kind.
    private static func described(_ value: JSONValue) -> String {
        guard case .number(let text) = value else { return value.kindDescription }
        return text.count > 32 ? text.prefix(32) + "…" : text
    }

    /// What a field of `type` takes, in words; an integer's range when `found` is a whole
    /// number beyond it.
    private static func kind(of type: Any.Type, found: JSONValue?) -> String {
        if type == Bool.self { return "true or false" }
        if type == String.self { return "a string" }
        if let integer = type as? any FixedWidthInteger.Type {
            guard case .number(let text)? = found, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") })
            else { return "an integer" }
            return "an integer from \(bounds(integer))"
        }
        if type is any BinaryFloatingPoint.Type { return "a number" }
        if type == [String: Any].self { return "an object" }
        if type == [Any].self { return "an array" }
        return "another kind of value"
    }

    private static func bounds<T: FixedWidthInteger>(_ type: T.Type) -> String { "\(T.min) to \(T.max)" }
}
