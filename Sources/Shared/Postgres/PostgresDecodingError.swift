/// A cell that does not decode into the type asked for (postgres-nio's
/// `PostgresDecodingError`): it names the column, the row, the type and what the cell held, so
/// that a bad row is found from the message alone.
public struct PostgresDecodingError: Error, Sendable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// The result has no column of that name.
        case missingColumn
        /// Several columns of the result share the name: the query must alias them apart.
        case ambiguousColumn
        /// NULL, read into a type that is not an Optional.
        case unexpectedNull
        /// Text that is no value of the type.
        case typeMismatch
    }

    public let problem: Problem
    public let column: String
    /// The column's position in the result; nil when the name matches none or several.
    public let columnIndex: Int?
    /// The row's position in the result, from 0.
    public let row: Int
    /// The type asked for, as Swift writes it (`Int64`, `Optional<Double>`).
    public let targetType: String
    /// The cell's text, cut short (`shortened`); nil for NULL and for a column not found.
    public let found: String?
    /// The result's column names, for a name that matched none or several.
    public let columns: [String]

    public var description: String {
        switch problem {
        case .missingColumn:
            return "row \(row) has no column \"\(column)\" to read as \(targetType) "
                + "(its columns: \(columns.joined(separator: ", ")))"
        case .ambiguousColumn:
            return "row \(row) has several columns named \"\(column)\" (its columns: "
                + "\(columns.joined(separator: ", "))); the query must name them apart"
        case .unexpectedNull:
            return "column \"\(column)\" of row \(row) is NULL, which \(targetType) cannot hold"
        case .typeMismatch:
            return "column \"\(column)\" of row \(row) holds \"\(found ?? "")\", "
                + "which does not decode as \(targetType)"
        }
    }

    /// Text longer than `limit` characters cut to its first ones: enough to recognise a
    /// value, never a whole project document in a log line.
    static func shortened(_ text: String, limit: Int = 40) -> String {
        text.count > limit ? text.prefix(limit) + "…" : text
    }
}
