import FarmCore
import FarmPostgres

/// The farm's own column types. A state, kind or name this build does not know is an error that
/// names its column and row, never a default.
extension PostgresDecodable where Self: RawRepresentable, RawValue == String {
    public init?(postgresText text: String) { self.init(rawValue: text) }
}

extension JobState: PostgresDecodable {}
extension ChunkState: PostgresDecodable {}
extension ChunkKind: PostgresDecodable {}
extension AttemptOutcome: PostgresDecodable {}
extension WorkerState: PostgresDecodable {}
extension ChunkStatus.State: PostgresDecodable {}
extension TokenRole: PostgresDecodable {}
extension ExportSettings.Container: PostgresDecodable {}

extension Rational: PostgresDecodable {
    /// Stored as its exact text (`30000/1001`).
    public init?(postgresText text: String) { self.init(parsing: text) }
}
