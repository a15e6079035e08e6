import FarmCore
import FarmStore
import Foundation
import Logging

/// Work the coordinator's loop starts now and then but never waits on (removing segments,
/// telling notify URLs): one pass at a time, on a queue and a database connection of its own,
/// the connection opened again after an error.
final class BackgroundPass: @unchecked Sendable {
    private let name: String
    private let database: String
    private let logger: Logger
    private let queue: DispatchQueue
    private let busy = Locked(false)
    /// Opened on the queue, dropped after an error (reopened by the next pass).
    private var store: FarmStore?
    private let body: (FarmStore) throws -> Void

    init(name: String, database: String, logger: Logger, body: @escaping (FarmStore) throws -> Void) {
        self.name = name
        self.database = database
        self.logger = logger
        self.body = body
        queue = DispatchQueue(label: "farm.\(name)")
    }

    /// Starts a pass unless one runs.
    func poke() {
        let idle = busy.withLock { running -> Bool in
            defer { running = true }
            return !running
        }
        guard idle else { return }
        queue.async { [self] in
            defer { busy.withLock { $0 = false } }
            do {
                let store = try self.store ?? FarmStore(url: database)
                self.store = store
                try body(store)
            } catch {
                store = nil
                logger.warning("\(name): \(error)")
            }
        }
    }

    /// Waits for a pass in progress (the coordinator is stopping).
    func finish() { queue.sync {} }
}
