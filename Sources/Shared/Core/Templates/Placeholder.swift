/// `{{ NAME }}` in a string: the text around it and the names, in order.
public enum Placeholder: Equatable, Sendable {
    case text(String)
    case field(String)

    public static func split(_ text: String) -> [Placeholder] {
        var pieces: [Placeholder] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard TemplateFields.isName(name) else {
                pieces.append(.text(String(rest[..<open.upperBound])))
                rest = rest[open.upperBound...]
                continue
            }
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            pieces.append(.field(name))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return pieces
    }
}

extension Placeholder {
    /// `pattern` with each `{{ NAME }}` replaced by `values[NAME]`; the names it lacks are
    /// thrown, in order.
    public static func fill(_ pattern: String, with values: [String: String]) throws -> String {
        let pieces = split(pattern)
        let missing = pieces.compactMap { piece -> String? in
            if case .field(let name) = piece, values[name] == nil { return name }
            return nil
        }
        guard missing.isEmpty else { throw Unknown(names: missing) }
        return pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .field(let name): return values[name]!
            }
        }.joined()
    }

    public struct Unknown: Error {
        public var names: [String]
    }
}
