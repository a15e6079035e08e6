/// Decodes a `Decodable` from a parsed `JSONValue`, each refusal a `DecodingError` at the exact
/// path of the value it refuses. Foundation's `JSONDecoder` reports a number that does not fit
/// its field (1.5 or 1e30 for an `Int`) as a syntax error of the whole document, with no path.
///
/// A number fits an integer field when it is a whole number in the type's range (`2.0` does);
/// a floating-point field takes any finite number. `null` where a value is needed is
/// `valueNotFound`; any other kind of value is `typeMismatch` (`[String: Any]` for an object
/// expected, `[Any]` for an array).
public enum JSONValueDecoder {
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }

    /// `codingPath` as a JSON path: `tracks[0].items[1].at` (empty for the document itself).
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = (key as? JSONIndexKey)?.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path
    }
}

extension JSONValue {
    /// The value at `codingPath` in this document, nil when there is none.
    public func value(at codingPath: [any CodingKey]) -> JSONValue? {
        var value = self
        for key in codingPath {
            switch value {
            case .object(let members):
                guard let member = members.first(where: { $0.key == key.stringValue }) else { return nil }
                value = member.value
            case .array(let items):
                guard let index = key.intValue, items.indices.contains(index) else { return nil }
                value = items[index]
            default: return nil
            }
        }
        return value
    }
}

/// An array element's place in a coding path.
public struct JSONIndexKey: CodingKey, Sendable {
    public let intValue: Int?
    public var stringValue: String { intValue.map(String.init) ?? "" }

    public init(intValue: Int) { self.intValue = intValue }
    public init?(stringValue: String) { nil }
}

private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw refusal([String: Any].self) }
        return KeyedDecodingContainer(ObjectContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw refusal([Any].self) }
        return ArrayContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw refusal(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw refusal(type) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value else { throw refusal(type) }
        if let exact = T(text) { return exact }
        // A whole number written with a fraction or an exponent (2.0, 1e3), exactly.
        guard let number = Double(text), number.rounded() == number, abs(number) < 0x1p53,
            let whole = T(exactly: number)
        else { throw refusal(type) }
        return whole
    }

    private func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value, let number = T(text), number.isFinite else { throw refusal(type) }
        return number
    }

    private func refusal(_ type: Any.Type) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: codingPath, debugDescription: "expected \(type), found \(value.kindDescription)")
        return value == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }
}

private struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: JSONValue)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

    private func decoder(for key: any CodingKey) throws -> ValueDecoder {
        guard let member = members.first(where: { $0.key == key.stringValue }) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return ValueDecoder(value: member.value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).decodeNil() }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try decoder(for: SuperKey()) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }

    private struct SuperKey: CodingKey {
        var stringValue: String { "super" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) { nil }
        init?(intValue: Int) { nil }
    }
}

private struct ArrayContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// The next element's decoder, the index moved past it.
    private mutating func next(_ type: Any.Type) throws -> ValueDecoder {
        let key = JSONIndexKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [key], debugDescription: "the array has \(items.count) elements"))
        }
        currentIndex += 1
        return ValueDecoder(value: items[key.intValue!], codingPath: codingPath + [key])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}
