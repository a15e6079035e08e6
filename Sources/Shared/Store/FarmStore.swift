import FarmCore
import FarmPostgres
import Foundation

/// The farm's state in PostgreSQL: jobs, their chunks, workers and every attempt.
///
/// Everything the coordinator knows lives here, so a restarted coordinator rebuilds from it.
/// A chunk is claimed for a worker in one transaction (`FOR UPDATE SKIP LOCKED`, so concurrent
/// claimers never wait on or take the same row), which bumps its attempt number. A result is
/// accepted only while its attempt is still the chunk's current one: that number is the fence.
public final class FarmStore {
    /// The store's own: nothing outside it runs SQL (LISTEN too is an API: FarmStore+Listen).
    package let connection: PostgresConnection

    /// Failed attempts of one chunk that fail its job.
    public static let failuresPerChunk = 3
    /// Failed and lost attempts together that fail a chunk's job (losses can be innocent: a
    /// worker restarted, a network cut; so the bar is higher than for failures alone).
    public static let lossesPerChunk = 4
    /// Chunks of one job a worker may fail before that job is kept from it.
    public static let failuresPerWorker = 3

    /// Who opens the store, which says what it may do to the schema.
    public enum Role: Sendable {
        /// The coordinator (`farm serve`, `farm render`'s own): brings an older schema up to date.
        case coordinator
        /// A command beside a coordinator (status, submit, control): uses the schema as it is and
        /// refuses an older or newer one, since migrating under a running older coordinator would
        /// break it. A database with no farm in it yet is made whole, as a coordinator would.
        case client
    }

    public init(url: String, role: Role = .coordinator) throws {
        connection = try PostgresConnection(url: url)
        switch role {
        case .coordinator: try Migrations.apply(on: connection)
        case .client: try Migrations.use(on: connection)
        }
    }

    /// Connects once the server is up: a coordinator started beside its database (compose, a
    /// pod, a boot) waits for it, as it waits out an outage later. `waiting` hears each failed try.
    /// A refusal that waiting cannot mend (password, database name) is thrown at once.
    public static func connectWhenUp(url: String, waiting: (PostgresError) -> Void) throws -> FarmStore {
        var backoff = Backoff()
        while true {
            do {
                return try FarmStore(url: url)
            } catch let error as PostgresError where error.isConnectionLost {
                waiting(error)
                backoff.pause()
            }
        }
    }

    /// Wakes whoever listens on channel `farm` (watchers); the payload is the job id.
    func notify(job: Int64) throws {
        try connection.query("SELECT pg_notify('farm', $1)", [String(job)])
    }
}
