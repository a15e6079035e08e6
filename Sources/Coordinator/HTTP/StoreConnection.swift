import FarmPostgres
import FarmStore
import Foundation

/// One database connection of the HTTP API's pool, used only on its own serial queue: libpq
/// blocks, and a connection serves one call at a time. Opened by its first call; a lost one is
/// dropped, and the next call opens it again.
final class StoreConnection: @unchecked Sendable {
    private let database: String
    private let queue: DispatchQueue
    /// Touched only on `queue`: that queue is what makes this class Sendable.
    private var store: FarmStore?

    init(database: String, number: Int) {
        self.database = database
        queue = DispatchQueue(label: "farm.http.store.\(number)")
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (FarmStore) throws -> T) async throws -> T {
        try await queue.run { [self] in
            do {
                let store = try self.store ?? FarmStore(url: database, role: .client)
                self.store = store
                return try body(store)
            } catch let error as PostgresError where error.isConnectionLost {
                self.store = nil
                throw error
            }
        }
    }
}
