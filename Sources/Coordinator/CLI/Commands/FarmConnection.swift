import ArgumentParser
import FarmCore
import FarmPostgres
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The farm to talk to, opened for one command: a named PostgreSQL, or the private server of
/// a data folder (started for the command and stopped after, unless something else runs it).
struct FarmConnection {
    let store: FarmStore
    private let server: PrivatePostgres?
    /// While a private server runs for this command, Ctrl-C or SIGTERM stop it before exiting.
    private let signals: StopSignals?

    /// `creating`: a data folder with no farm yet gets one (for `submit`); otherwise that is an error.
    init(_ options: DatabaseOptions, creating: Bool = false) throws {
        guard
            creating || options.namedDatabase != nil
                || FileManager.default.fileExists(atPath: options.privateServerFolder.path)
        else {
            FarmExit.printError(
                "no farm here: give --database or $DATABASE_URL, or the --data folder of a farm "
                    + "(\(options.privateServerFolder.path) does not exist)"
            )
            throw FarmExit.failed
        }
        let (url, server) = try FarmExit.guarding { try options.open() }
        self.server = server
        signals = server.map { server in
            StopSignals { number in
                server.stop()
                exit(128 + number)
            }
        }
        do {
            // A command never migrates a farm's schema under its coordinator.
            store = try FarmExit.guarding { try FarmStore(url: url, role: .client) }
        } catch {
            server?.stop()
            throw error
        }
    }

    func close() { server?.stop() }
}

extension DatabaseOptions {
    /// Opens the farm for one command, runs `body` with its store (refusals and database errors
    /// become their exit codes), and closes it.
    func withFarm<T>(creating: Bool = false, _ body: (FarmStore) throws -> T) throws -> T {
        let farm = try FarmConnection(self, creating: creating)
        defer { farm.close() }
        return try FarmExit.guarding { try body(farm.store) }
    }
}
