import FarmStore
import Foundation

/// The HTTP API's database connection. libpq blocks, so every call runs on one thread of its
/// own, never on the server's event loop; a lost connection is opened again by the next call.
final class StoreQueue: @unchecked Sendable {
    private let database: String
    private let queue = DispatchQueue(label: "farm.http.store")
    private var store: FarmStore?

    init(database: String) {
        self.database = database
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (FarmStore) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                do {
                    let store = try self.store ?? FarmStore(url: database)
                    self.store = store
                    continuation.resume(returning: try body(store))
                } catch let error as PostgresError where error.isConnectionLost {
                    self.store = nil
                    continuation.resume(throwing: error)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
