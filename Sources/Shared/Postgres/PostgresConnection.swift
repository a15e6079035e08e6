import CPostgres
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A failed PostgreSQL call, with the server's own message.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The SQLSTATE code when the server sent one (e.g. "40001").
    public let state: String?

    public var description: String { message }

    public init(message: String, state: String?) {
        self.message = message
        self.state = state
    }

    /// The server went away (restart, outage, administrator command): reconnecting may help.
    public var isConnectionLost: Bool { state == Self.connectionLost }

    /// SQLSTATE class 08, connection exception: the code this type gives a dropped connection.
    static let connectionLost = "08006"

    /// The server rolled the transaction back to break a deadlock (40P01) or a serialization
    /// conflict (40001); running it again is the remedy PostgreSQL documents.
    public var isTransientConflict: Bool { state == "40P01" || state == "40001" }

    /// A row a unique index already holds (23505).
    public var isUniqueViolation: Bool { state == "23505" }
}

/// One libpq connection. Every value travels as a text parameter (`$1`, `$2`, …); SQL text is
/// never built from values.
///
/// Not thread-safe: one connection per thread.
public final class PostgresConnection {
    private let connection: OpaquePointer
    /// Channels LISTENed to, listened to again after a reconnect.
    private var channels: Set<String> = []
    /// Inside `transaction`: a statement that conflicts fails it, and the whole of it runs again.
    private var inTransaction = false

    public init(url: String) throws {
        guard let connection = PQconnectdb(url) else { throw PostgresError(message: "out of memory", state: nil) }
        self.connection = connection
        guard PQstatus(connection) == CONNECTION_OK else {
            // libpq puts its hint on a second, indented line; keep the message to one line.
            let message = Self.trimmed(PQerrorMessage(connection)).replacingOccurrences(of: "\n\t", with: " ")
            // No PQfinish here: every stored property is set, so deinit runs and closes it.
            throw PostgresError(
                message: "connect to \(Self.redacted(url)): \(message)",
                state: Self.serverIsDown(url) ? PostgresError.connectionLost : nil)
        }
        Self.silenceNotices(connection)
        try prepareSession()
    }

    /// No server answers at `url`, or it answers that it is starting or stopping: waiting may
    /// help. A wrong password or database name is not this.
    private static func serverIsDown(_ url: String) -> Bool {
        let ping = PQping(url)
        return ping == PQPING_NO_RESPONSE || ping == PQPING_REJECT
    }

    /// What every session of this connection starts with. JIT off: the farm's statements are
    /// short, and PostgreSQL's cost estimates for the status views' lateral joins passed its JIT
    /// threshold, compiling 58 functions (40 ms) to run a 60 ms query on every `farm status`
    /// and dashboard refresh.
    private func prepareSession() throws {
        try query("SELECT set_config('client_min_messages', 'warning', false), set_config('jit', 'off', false)")
        for channel in channels.sorted() { try query("LISTEN \(channel)") }
    }

    /// libpq prints the server's notices to stderr by default, raw ("FATAL:  terminating
    /// connection due to administrator command"); the farm reports what matters in its own words.
    private static func silenceNotices(_ connection: OpaquePointer) {
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    /// Whether the connection is still up, as far as libpq knows.
    private var isConnected: Bool { PQstatus(connection) == CONNECTION_OK }

    /// Connects again with the same parameters after the server went away; throws while it
    /// is still unreachable. LISTENs are restored; advisory locks are gone and are the caller's
    /// to take again.
    public func reconnect() throws {
        PQreset(connection)
        guard isConnected else {
            throw PostgresError(
                message: Self.firstLine(PQerrorMessage(connection)), state: PostgresError.connectionLost)
        }
        try prepareSession()
    }

    deinit {
        PQfinish(connection)
    }

    /// Runs one statement and returns its rows, read by column name. Outside a transaction, a
    /// statement the server rolled back for a conflict runs again.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws -> [PostgresRow] {
        if inTransaction { return try execute(sql, parameters) }
        return try retryingConflicts { try execute(sql, parameters) }
    }

    private func execute(_ sql: String, _ parameters: [String?]) throws -> [PostgresRow] {
        let result = withParameters(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return []
        case PGRES_TUPLES_OK:
            let columns = PostgresColumns(
                names: (0..<PQnfields(result)).map { column in String(cString: PQfname(result, column)) })
            return (0..<PQntuples(result)).map { row in
                PostgresRow(
                    columns: columns,
                    values: (0..<Int32(columns.names.count)).map { column in
                        PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
                    }, index: Int(row))
            }
        default:
            throw failure(result)
        }
    }

    /// Runs a script of several statements with no parameters (schema migrations only).
    public func run(script: String) throws {
        let result = PQexec(connection, script)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw failure(result)
        }
    }

    /// Runs `body` inside BEGIN/COMMIT; any error rolls back and is rethrown. A transaction
    /// that is not `durable` commits without waiting for its WAL to reach the disk: for
    /// bookkeeping a crash may lose without harm (lease renewals, progress), never for state
    /// the farm acts on. One inside another is part of the outer one.
    ///
    /// A transaction the server rolls back for a deadlock or a serialization conflict runs again
    /// from the start, so whatever `body` does outside the database must bear repeating.
    public func transaction<T>(durable: Bool = true, _ body: () throws -> T) throws -> T {
        if inTransaction { return try body() }
        return try retryingConflicts {
            try run(script: durable ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit = off")
            inTransaction = true
            defer { inTransaction = false }
            do {
                let value = try body()
                try execute("COMMIT", [])
                return value
            } catch {
                _ = try? execute("ROLLBACK", [])
                throw error
            }
        }
    }

    /// Runs `work` up to `Self.conflictTries` times while the server breaks a conflict by
    /// rolling it back; the pause grows and is jittered so that the two sides do not meet again.
    private func retryingConflicts<T>(_ work: () throws -> T) throws -> T {
        var tries = 1
        while true {
            do {
                return try work()
            } catch let error as PostgresError where error.isTransientConflict && tries < Self.conflictTries {
                usleep(UInt32.random(in: 5_000...20_000) * UInt32(tries))
                tries += 1
            }
        }
    }

    static let conflictTries = 5

    /// Subscribes this connection to `channel` (a fixed identifier, never user input).
    public func listen(_ channel: String) throws {
        try query("LISTEN \(channel)")
        channels.insert(channel)
    }

    /// Waits up to `timeout` seconds for notifications; returns their payloads (empty on timeout).
    public func notifications(timeout: Double) throws -> [String] {
        var payloads = drainNotifications()
        if !payloads.isEmpty { return payloads }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000)))
        if ready > 0 {
            guard PQconsumeInput(connection) == 1 else { throw failure(nil) }
            payloads = drainNotifications()
        }
        return payloads
    }

    private func drainNotifications() -> [String] {
        var payloads: [String] = []
        while let notice = PQnotifies(connection) {
            payloads.append(String(cString: notice.pointee.extra))
            PQfreemem(notice)
        }
        return payloads
    }

    /// The server's message and SQLSTATE for a failed result (or the connection's, without one).
    private func failure(_ result: OpaquePointer?) -> PostgresError {
        // A dropped connection reads as one line whatever libpq's text ("FATAL:  terminating
        // connection due to administrator command", "server closed the connection…").
        guard isConnected else {
            let reason = Self.firstLine(PQerrorMessage(connection))
            return PostgresError(
                message: "lost the connection to the database (\(reason))", state: PostgresError.connectionLost)
        }
        let message = result.map { Self.trimmed(PQresultErrorMessage($0)) } ?? Self.trimmed(PQerrorMessage(connection))
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        return PostgresError(message: message, state: state)
    }

    private func withParameters<T>(_ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }

    /// libpq's message without its severity prefix or continuation lines.
    private static func firstLine(_ text: UnsafePointer<CChar>?) -> String {
        let line = trimmed(text).split(separator: "\n").first.map(String.init) ?? "unknown error"
        let bare = line.hasPrefix("FATAL:") ? line.dropFirst("FATAL:".count) : Substring(line)
        return bare.trimmingCharacters(in: .whitespaces)
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
