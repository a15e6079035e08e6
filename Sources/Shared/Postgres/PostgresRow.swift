/// The column names of one result, looked up once for all its rows.
struct PostgresColumns: Sendable {
    let names: [String]
    /// Each name's position; nil for a name two columns share, which no read may guess between.
    private let positions: [String: Int?]

    init(names: [String]) {
        self.names = names
        var positions: [String: Int?] = [:]
        for (index, name) in names.enumerated() { positions[name] = positions[name] == nil ? index : .some(nil) }
        self.positions = positions
    }

    /// The position of `name`: `.none` when no column has it, `.some(nil)` when several do.
    func position(of name: String) -> Int?? { positions[name] }
}

/// One result row (postgres-nio's `PostgresRow`): its cells are found by column name and decoded
/// into types, never read by position, so a reordered SELECT list cannot shift a value into the
/// wrong field.
public struct PostgresRow: Sendable, CustomStringConvertible {
    let columns: PostgresColumns
    /// The server's text for each column; nil for NULL.
    let values: [String?]
    /// The row's position in its result, from 0.
    public let index: Int

    /// The value of column `name` as a `T`: throws when the result has no such column (or
    /// several), when it is NULL and `T` is no Optional, or when its text is no `T`.
    public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try cell(name, for: T.self).decode(T.self)
    }

    private func cell<T>(_ name: String, for _: T.Type) throws -> PostgresCell {
        guard let found = columns.position(of: name), let position = found else {
            throw PostgresDecodingError(
                problem: columns.position(of: name) == nil ? .missingColumn : .ambiguousColumn, column: name,
                columnIndex: nil, row: index, targetType: String(describing: T.self), found: nil,
                columns: columns.names)
        }
        return PostgresCell(text: values[position], columnName: name, columnIndex: position, rowIndex: index)
    }

    /// `name=value` for each column, values cut short: for test messages and debugging.
    public var description: String {
        let cells = zip(columns.names, values).map { name, value in
            "\(name)=" + (value.map { PostgresDecodingError.shortened($0) } ?? "NULL")
        }
        return "row \(index): " + cells.joined(separator: ", ")
    }
}
