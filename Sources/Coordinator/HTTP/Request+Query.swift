import Hummingbird

extension Request {
    /// The query parameter `name` as an integer in `range`, nil when absent; a 400 naming it
    /// when it is anything else (`?limit=x` is refused, not taken for the default).
    package func integerQuery(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text), range ~= value else {
            let words = "expected an integer from \(range.lowerBound) to \(range.upperBound)"
            throw APIError(.badRequest, words, path: name)
        }
        return value
    }

    /// The query parameter `name` as `true` or `false`, false when absent; a 400 naming it when
    /// it is anything else.
    package func flagQuery(_ name: String) throws -> Bool {
        guard let text = uri.queryParameters.get(name) else { return false }
        guard let flag = Bool(text) else { throw APIError(.badRequest, "expected true or false", path: name) }
        return flag
    }
}
