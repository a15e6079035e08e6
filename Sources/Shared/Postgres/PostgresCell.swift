/// One value of a result row, as the server wrote it (postgres-nio's `PostgresCell`). It is read
/// only by decoding into a type, so NULL or text that is no value of the type is an error that
/// names the column, never a default.
struct PostgresCell: Sendable {
    /// The server's text; nil for NULL.
    let text: String?
    let columnName: String
    let columnIndex: Int
    /// The row's position in its result, from 0.
    let rowIndex: Int

    /// The cell as a `T`: NULL only into an Optional, text only when it is a `T`.
    func decode<T: PostgresDecodable>(_: T.Type = T.self) throws -> T {
        guard let text else {
            guard let null = T.postgresNull else { throw error(.unexpectedNull, T.self) }
            return null
        }
        guard let value = T(postgresText: text) else { throw error(.typeMismatch, T.self) }
        return value
    }

    private func error<T>(_ problem: PostgresDecodingError.Problem, _: T.Type) -> PostgresDecodingError {
        PostgresDecodingError(
            problem: problem, column: columnName, columnIndex: columnIndex, row: rowIndex,
            targetType: String(describing: T.self), found: text.map { PostgresDecodingError.shortened($0) },
            columns: [])
    }
}
