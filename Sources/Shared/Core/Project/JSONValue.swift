/// A parsed JSON document that keeps what `JSONSerialization` loses: number literals as written
/// (so "1.5" stays exact), object key order, duplicate keys, and line/column for errors.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The literal text of the number, e.g. "1.5" or "-3e2".
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// A word for messages: "a string", "an object", ...
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A syntax error with its 1-based line and column.
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let reason: String
    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes, with opt-in extensions for other formats' readers.
public struct JSONParser {
    /// What a document may hold beyond RFC 8259.
    public struct Extensions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `NaN`, `Inf` and `Infinity`, each also after a `-`, wherever a value may be: what
        /// OpenTimelineIO's reader takes (RapidJSON's `kParseNanAndInfFlag`) and its writer
        /// emits. Each is a `.number` holding the word as written ("-Infinity").
        public static let nonFiniteNumbers = Extensions(rawValue: 1)
    }

    private let bytes: [UInt8]
    private let extensions: Extensions
    private var index = 0

    public static func parse(_ data: [UInt8], extensions: Extensions = []) throws -> JSONValue {
        var parser = JSONParser(bytes: data, extensions: extensions)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the document") }
        return value
    }

    private init(bytes: [UInt8], extensions: Extensions) {
        self.bytes = bytes
        self.extensions = extensions
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for byte in bytes[..<Swift.min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws -> JSONValue {
        for expected in literal.utf8 {
            guard current == expected else { throw error("invalid literal, expected \(literal)") }
            index += 1
        }
        return value
    }

    private mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth < 256 else { throw error("nesting too deep") }
        guard let byte = current else { throw error("unexpected end of file") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "N") where extensions.contains(.nonFiniteNumbers),
            UInt8(ascii: "I") where extensions.contains(.nonFiniteNumbers):
            return try parseNonFinite(from: index)
        default: throw error("unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func parseObject(depth: Int) throws -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        // A set, not a scan of `members`: an object with many keys must not take quadratic time.
        var keys: Set<String> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try parseString()
            guard keys.insert(key).inserted else { throw error("duplicate key \(JSONField.quote(key))") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \(JSONField.quote(key))") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if extensions.contains(.nonFiniteNumbers), current == UInt8(ascii: "N") || current == UInt8(ascii: "I") {
            return try parseNonFinite(from: start)
        }
        func digits(_ parser: inout JSONParser) -> Int {
            var count = 0
            while let byte = parser.current, byte >= 0x30, byte <= 0x39 {
                parser.index += 1
                count += 1
            }
            return count
        }
        guard digits(&self) > 0 else { throw error("invalid number") }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("invalid number: digits expected after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("invalid number: digits expected in exponent") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// `NaN`, `Infinity` or `Inf` at `index`, after the sign (if any) that starts at `start`.
    private mutating func parseNonFinite(from start: Int) throws -> JSONValue {
        // The longer word first: "Infinity" must not stop after "Inf".
        for word in ["Infinity", "Inf", "NaN"] {
            let end = index + word.utf8.count
            guard end <= bytes.count, bytes[index..<end].elementsEqual(word.utf8) else { continue }
            index = end
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        throw error("invalid number: expected NaN, Inf or Infinity")
    }

    /// Collects UTF-8 bytes and makes one String at the end: linear in the input however many
    /// escapes it holds.
    private mutating func parseString() throws -> String {
        index += 1
        var utf8: [UInt8] = []
        var run = index
        func flush(_ parser: JSONParser, _ run: Int) { utf8.append(contentsOf: parser.bytes[run..<parser.index]) }
        func append(_ scalar: Unicode.Scalar) { utf8.append(contentsOf: UTF8.encode(scalar)!) }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                flush(self, run)
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character in string") }
            if byte == UInt8(ascii: "\\") {
                flush(self, run)
                index += 1
                guard let escape = current else { throw error("unterminated string") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): append("\"")
                case UInt8(ascii: "\\"): append("\\")
                case UInt8(ascii: "/"): append("/")
                case UInt8(ascii: "b"): append("\u{08}")
                case UInt8(ascii: "f"): append("\u{0C}")
                case UInt8(ascii: "n"): append("\n")
                case UInt8(ascii: "r"): append("\r")
                case UInt8(ascii: "t"): append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        // A high surrogate must be followed by a low one: "\ud800\u0041" is no character.
                        guard current == UInt8(ascii: "\\") else { throw error("invalid surrogate pair") }
                        index += 1
                        guard current == UInt8(ascii: "u") else { throw error("invalid surrogate pair") }
                        index += 1
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    append(scalar)
                default: throw error("invalid escape in string")
                }
                run = index
                continue
            }
            index += 1
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            bytes[index..<index + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("invalid \\u escape") }
        index += 4
        return value
    }
}
