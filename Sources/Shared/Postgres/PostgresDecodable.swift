/// A type a cell's text decodes into (postgres-nio's `PostgresDecodable`, for text results).
/// NULL is no value of any type but an Optional: `PostgresCell.decode` refuses it otherwise.
public protocol PostgresDecodable: Sendable {
    /// The value the server's text form `text` stands for; nil when it stands for none of
    /// this type (the cell then throws, naming its column).
    init?(postgresText text: String)

    /// What NULL decodes into; nil for every type but an Optional.
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init?(postgresText text: String) {
        guard let value = Wrapped(postgresText: text) else { return nil }
        self = .some(value)
    }

    public static var postgresNull: Self? { .some(.none) }
}

extension String: PostgresDecodable {
    public init?(postgresText text: String) { self = text }
}

extension Int64: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Int32: PostgresDecodable {
    public init?(postgresText text: String) { self.init(text) }
}

extension Double: PostgresDecodable {
    /// Also PostgreSQL's "Infinity", "-Infinity" and "NaN", which Swift reads as well.
    public init?(postgresText text: String) { self.init(text) }
}

extension Bool: PostgresDecodable {
    /// PostgreSQL writes a boolean as `t` or `f`; anything else is no boolean.
    public init?(postgresText text: String) {
        switch text {
        case "t": self = true
        case "f": self = false
        default: return nil
        }
    }
}
