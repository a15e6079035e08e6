/// A state stored in the database as its raw text. A row holding a value this build does not
/// know is an error, never a silent default: it means a newer farm wrote it, or the row is damaged.
public protocol StoredState: RawRepresentable, Sendable, Hashable, Codable, CaseIterable where RawValue == String {}

/// A stored state that is not one of the values this build knows.
public struct UnknownStateError: Error, Sendable, CustomStringConvertible {
    public let type: String
    public let value: String

    public init(type: String, value: String) {
        self.type = type
        self.value = value
    }

    public var description: String {
        "unknown \(type) \"\(value)\" in the database (written by a newer farm?)"
    }
}

extension StoredState {
    /// The state stored as `text`; throws when this build does not know it.
    public init(stored text: String) throws {
        guard let value = Self(rawValue: text) else {
            throw UnknownStateError(type: String(describing: Self.self), value: text)
        }
        self = value
    }
}
