import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// Cells are read by column name into types, against a real PostgreSQL: NULL goes only into an
/// Optional, and text that is no value of the type is an error naming the column, the row and
/// the type, never a 0 or an empty string.
@Suite struct RowDecodingTests {
    static func rows(_ sql: String) throws -> [PostgresRow] {
        try PostgresConnection(url: TestDatabase.create()).query(sql)
    }

    @Test func nullIntoANonOptionalNamesTheColumnAndTheRow() throws {
        let rows = try Self.rows("SELECT * FROM (VALUES (1, 'first'), (2, NULL)) AS t(id, error) ORDER BY id")
        #expect(try rows[0].decode("error", as: String.self) == "first")
        let error = #expect(throws: PostgresDecodingError.self) { try rows[1].decode("error", as: String.self) }
        #expect(error?.description == "column \"error\" of row 1 is NULL, which String cannot hold")
        #expect(error?.problem == .unexpectedNull)
        #expect(error?.columnIndex == 1)
    }

    @Test func anUnparsableIntNamesTheColumnAndTheType() throws {
        let row = try #require(try Self.rows("SELECT 1 AS id, 'twelve' AS priority").first)
        let error = #expect(throws: PostgresDecodingError.self) { try row.decode("priority", as: Int.self) }
        #expect(error?.description == "column \"priority\" of row 0 holds \"twelve\", which does not decode as Int")
        // The Optional of a type is no more lenient: only NULL is nil.
        #expect(throws: PostgresDecodingError.self) { try row.decode("priority", as: Int64?.self) }
        #expect(throws: PostgresDecodingError.self) { try row.decode("priority", as: Double.self) }
    }

    @Test func anOptionalReadsNullAsNil() throws {
        let row = try #require(
            try Self.rows("SELECT NULL::bigint AS finished, 5::bigint AS done, NULL::text AS error").first)
        #expect(try row.decode("finished", as: Int64?.self) == nil)
        #expect(try row.decode("done", as: Int64?.self) == 5)
        #expect(try row.decode("error", as: String?.self) == nil)
    }

    @Test func aMissingColumnIsAnErrorNamingIt() throws {
        let row = try #require(try Self.rows("SELECT 1 AS id, 'job' AS name").first)
        let error = #expect(throws: PostgresDecodingError.self) { try row.decode("nme", as: String.self) }
        #expect(error?.description == "row 0 has no column \"nme\" to read as String (its columns: id, name)")
        #expect(error?.problem == .missingColumn)
    }

    @Test func aNameTwoColumnsShareIsNotGuessedBetween() throws {
        let row = try #require(try Self.rows("SELECT 1 AS n, 2 AS n, 3 AS m").first)
        let error = #expect(throws: PostgresDecodingError.self) { try row.decode("n", as: Int.self) }
        #expect(error?.problem == .ambiguousColumn)
        #expect(error?.description.contains("several columns named \"n\"") == true, "\(error?.description ?? "")")
        #expect(try row.decode("m", as: Int.self) == 3)
    }

    @Test func eachTypeReadsWhatPostgreSQLWrites() throws {
        let row = try #require(
            try Self.rows(
                """
                SELECT true AS yes, false AS no, 9007199254740993::bigint AS big, 2.5::float8 AS half,
                       'Infinity'::float8 AS unbounded,
                       extract(epoch FROM timestamptz '2024-01-01 00:00:00.5+00') AS at,
                       'running' AS state, '30000/1001' AS fps
                """
            ).first)
        #expect(try row.decode("yes", as: Bool.self) && !row.decode("no", as: Bool.self))
        #expect(try row.decode("big", as: Int64.self) == 9_007_199_254_740_993)
        #expect(try row.decode("half", as: Double.self) == 2.5)
        #expect(try row.decode("unbounded", as: Double.self) == .infinity)
        #expect(try row.decode("at", as: Double.self) == 1_704_067_200.5)
        #expect(try row.decode("state", as: JobState.self) == .running)
        #expect(try row.decode("fps", as: Rational.self) == Rational(30000, 1001))
        // A boolean is `t` or `f`; a state is one this build knows.
        #expect(throws: PostgresDecodingError.self) { try row.decode("big", as: Bool.self) }
        #expect(throws: PostgresDecodingError.self) { try row.decode("fps", as: JobState.self) }
    }

    @Test func aLongValueIsCutShortInTheError() throws {
        let row = try #require(try Self.rows("SELECT repeat('x', 500) AS project_text").first)
        let error = #expect(throws: PostgresDecodingError.self) { try row.decode("project_text", as: Int.self) }
        #expect(error?.found == String(repeating: "x", count: 40) + "…")
    }

    /// A job row the store cannot read names its column instead of showing a default.
    @Test func aStoredRecordWithABadValueNamesItsColumn() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try SchedulingTests.submit(store, chunks: 1)
        try store.connection.query("UPDATE jobs SET fps = 'fast' WHERE id = $1", [String(job)])
        let error = #expect(throws: PostgresDecodingError.self) { _ = try store.job(job) }
        #expect(error?.description == "column \"fps\" of row 0 holds \"fast\", which does not decode as Rational")
    }
}
