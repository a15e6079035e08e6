/// Bytes that name an `Encodable` value, for hashing: the same value always gives the same
/// bytes (a keyed container's entries sorted by key, as a dictionary's order is not fixed from
/// one process to the next), and two different values never do (every value tagged with its
/// kind, strings and containers prefixed with their lengths).
///
/// It walks the same `encode(to:)` as JSONEncoder, so a field added to a type is covered with
/// no change here, at a fraction of JSONEncoder's cost: no text, no escaping, no number
/// formatting. A chunk's key hashes one of these per chunk (`ChunkKeys`); at 100,000 chunks
/// JSONEncoder took most of a submission's time.
public enum CanonicalEncoder {
    public static func bytes<T: Encodable>(of value: T) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    /// Appends `value`'s bytes to `out`.
    public static func append<T: Encodable>(_ value: T, to out: inout [UInt8]) {
        let root = CanonicalNode()
        // The encoder itself never throws; a value whose own encode(to:) does would leave its
        // bytes cut short, and two such values could share them.
        do {
            try value.encode(to: CanonicalEncoding(node: root, codingPath: []))
        } catch {
            preconditionFailure("CanonicalEncoder: \(T.self) failed to encode: \(error)")
        }
        root.write(into: &out)
    }
}

/// A value being encoded: a primitive's tagged bytes, or a container of nodes.
final class CanonicalNode {
    enum Tag: UInt8 {
        case null = 0x30
        case bool, signed, unsigned, double, string, keyed, unkeyed, empty
    }

    private enum Leaf {
        case none, null
        case bool(Bool)
        case signed(Int64)
        case unsigned(UInt64)
        case double(Double)
        case string(String)
    }

    private var leaf = Leaf.none
    private var entries: [(key: String, node: CanonicalNode)]?
    private var items: [CanonicalNode]?

    func becomeKeyed() { if entries == nil { entries = [] } }
    func becomeUnkeyed() { if items == nil { items = [] } }

    func child(forKey key: String) -> CanonicalNode {
        let node = CanonicalNode()
        entries?.append((key, node))
        return node
    }

    func appendedItem() -> CanonicalNode {
        let node = CanonicalNode()
        items?.append(node)
        return node
    }

    var itemCount: Int { items?.count ?? 0 }

    func setNull() { leaf = .null }
    func set(_ value: Bool) { leaf = .bool(value) }
    func set(signed value: Int64) { leaf = .signed(value) }
    func set(unsigned value: UInt64) { leaf = .unsigned(value) }
    func set(_ value: Double) { leaf = .double(value) }
    func set(_ value: String) { leaf = .string(value) }

    func write(into out: inout [UInt8]) {
        if let entries {
            out.append(Tag.keyed.rawValue)
            Self.append(UInt64(entries.count), to: &out)
            // Sorted as a dictionary's keys come in any order; most containers are short.
            let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for entry in sorted {
                Self.append(entry.key, to: &out)
                entry.node.write(into: &out)
            }
        } else if let items {
            out.append(Tag.unkeyed.rawValue)
            Self.append(UInt64(items.count), to: &out)
            for item in items { item.write(into: &out) }
        } else {
            switch leaf {
            case .none:
                // A value that encoded nothing at all.
                out.append(Tag.empty.rawValue)
            case .null:
                out.append(Tag.null.rawValue)
            case .bool(let value):
                out.append(Tag.bool.rawValue)
                out.append(value ? 1 : 0)
            case .signed(let value):
                out.append(Tag.signed.rawValue)
                Self.append(UInt64(bitPattern: value), to: &out)
            case .unsigned(let value):
                out.append(Tag.unsigned.rawValue)
                Self.append(value, to: &out)
            case .double(let value):
                out.append(Tag.double.rawValue)
                Self.append(value.bitPattern, to: &out)
            case .string(let value):
                out.append(Tag.string.rawValue)
                Self.append(value, to: &out)
            }
        }
    }

    private static func append(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Its UTF-8 length, then its UTF-8 bytes.
    private static func append(_ text: String, to out: inout [UInt8]) {
        append(UInt64(text.utf8.count), to: &out)
        out.append(contentsOf: text.utf8)
    }
}

struct CanonicalEncoding: Encoder {
    let node: CanonicalNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(CanonicalKeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return CanonicalUnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CanonicalSingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// Puts primitives into a node; every container encodes through it, so a value encodes to the
/// same bytes whichever container (and whichever overload) it went through.
protocol CanonicalPrimitiveSink {
    var codingPath: [any CodingKey] { get }
    func target(_ key: (any CodingKey)?) -> CanonicalNode
}

extension CanonicalPrimitiveSink {
    func put(_ value: Bool, _ key: (any CodingKey)?) { target(key).set(value) }
    func put(_ value: String, _ key: (any CodingKey)?) { target(key).set(value) }
    func put(_ value: Double, _ key: (any CodingKey)?) { target(key).set(value) }
    func putSigned<I: SignedInteger & FixedWidthInteger>(_ value: I, _ key: (any CodingKey)?) {
        target(key).set(signed: Int64(value))
    }
    func putUnsigned<U: UnsignedInteger & FixedWidthInteger>(_ value: U, _ key: (any CodingKey)?) {
        target(key).set(unsigned: UInt64(value))
    }
    func putNil(_ key: (any CodingKey)?) { target(key).setNull() }

    func putEncodable<T: Encodable>(_ value: T, _ key: (any CodingKey)?) throws {
        let node = target(key)
        try value.encode(to: CanonicalEncoding(node: node, codingPath: codingPath + (key.map { [$0] } ?? [])))
    }
}

/// The unkeyed and single-value containers' calls: the same primitives, without a key.
protocol CanonicalKeylessSink: CanonicalPrimitiveSink {}

extension CanonicalKeylessSink {
    mutating func encodeNil() throws { putNil(nil) }
    mutating func encode(_ value: Bool) throws { put(value, nil) }
    mutating func encode(_ value: String) throws { put(value, nil) }
    mutating func encode(_ value: Double) throws { put(value, nil) }
    mutating func encode(_ value: Float) throws { put(Double(value), nil) }
    mutating func encode(_ value: Int) throws { putSigned(value, nil) }
    mutating func encode(_ value: Int8) throws { putSigned(value, nil) }
    mutating func encode(_ value: Int16) throws { putSigned(value, nil) }
    mutating func encode(_ value: Int32) throws { putSigned(value, nil) }
    mutating func encode(_ value: Int64) throws { putSigned(value, nil) }
    mutating func encode(_ value: UInt) throws { putUnsigned(value, nil) }
    mutating func encode(_ value: UInt8) throws { putUnsigned(value, nil) }
    mutating func encode(_ value: UInt16) throws { putUnsigned(value, nil) }
    mutating func encode(_ value: UInt32) throws { putUnsigned(value, nil) }
    mutating func encode(_ value: UInt64) throws { putUnsigned(value, nil) }
    mutating func encode<T: Encodable>(_ value: T) throws { try putEncodable(value, nil) }
}

struct CanonicalKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, CanonicalPrimitiveSink {
    let node: CanonicalNode
    let codingPath: [any CodingKey]

    func target(_ key: (any CodingKey)?) -> CanonicalNode { node.child(forKey: key?.stringValue ?? "") }

    mutating func encodeNil(forKey key: Key) throws { putNil(key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(Double(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { putSigned(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { putSigned(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { putSigned(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { putSigned(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { putSigned(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { putUnsigned(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { putUnsigned(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { putUnsigned(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { putUnsigned(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { putUnsigned(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try putEncodable(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = target(key)
        child.becomeKeyed()
        return KeyedEncodingContainer(CanonicalKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = target(key)
        child.becomeUnkeyed()
        return CanonicalUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        CanonicalEncoding(node: node.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        CanonicalEncoding(node: target(key), codingPath: codingPath + [key])
    }
}

struct CanonicalUnkeyedContainer: UnkeyedEncodingContainer, CanonicalKeylessSink {
    let node: CanonicalNode
    let codingPath: [any CodingKey]
    var count: Int { node.itemCount }

    func target(_ key: (any CodingKey)?) -> CanonicalNode { node.appendedItem() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = target(nil)
        child.becomeKeyed()
        return KeyedEncodingContainer(CanonicalKeyedContainer<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = target(nil)
        child.becomeUnkeyed()
        return CanonicalUnkeyedContainer(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        CanonicalEncoding(node: target(nil), codingPath: codingPath)
    }
}

struct CanonicalSingleValueContainer: SingleValueEncodingContainer, CanonicalKeylessSink {
    let node: CanonicalNode
    let codingPath: [any CodingKey]

    func target(_ key: (any CodingKey)?) -> CanonicalNode { node }

}
