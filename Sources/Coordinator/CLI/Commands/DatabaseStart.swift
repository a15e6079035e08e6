import FarmCore
import FarmPostgres
import FarmStore
import Foundation

/// The database of `farm render`'s own farm, opened on a thread of its own while the project
/// is read and its media probed and pinned: a private server takes a few hundred milliseconds
/// to start, which the render need not wait for on top of the rest.
final class DatabaseStart: @unchecked Sendable {
    private let options: DatabaseOptions
    private let opened = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<(url: String, server: PrivatePostgres?), Error>?>(nil)
    private var begun = false

    init(_ options: DatabaseOptions) {
        self.options = options
        // A first render creates the server's cluster (a copy of the machine's template, or
        // initdb, seconds, where there is none yet): that waits until the project has proved
        // good, so a mistyped one costs nothing and leaves nothing behind.
        let cluster = options.privateServerFolder.appendingPathComponent("PG_VERSION")
        if options.namedDatabase == nil && FileManager.default.fileExists(atPath: cluster.path) { begin() }
    }

    private func begin() {
        begun = true
        let thread = Thread { [self] in
            outcome.withLock { $0 = Result { try options.open() } }
            opened.signal()
        }
        thread.start()
    }

    /// The connection string, and the private server when one was started for this render
    /// (its owner stops it).
    func wait() throws -> (url: String, server: PrivatePostgres?) {
        if !begun { begin() }
        opened.wait()
        opened.signal()
        return try outcome.current!.get()
    }

    /// For a render that ends before it needs the database: stops the server it started.
    func abandon() {
        guard begun else { return }
        (try? wait())?.server?.stop()
    }
}
