import FarmPostgres
import FarmStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// A coordinator started beside its database (compose, a pod, a boot) waits for it, and a
/// refusal that waiting cannot mend is reported at once.
@Suite struct ConnectWhenUpTests {
    @Test func aServerStartedLaterIsWaitedFor() throws {
        try withTemporaryDirectory { dir in
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            defer { server.stop() }
            let failures = Mutex<[PostgresError]>([])
            let starter = Thread {
                // Started only once the store has failed to connect at least once.
                while failures.withLock({ $0.isEmpty }) { Thread.sleep(forTimeInterval: 0.05) }
                try? server.start()
            }
            starter.start()
            let store = try FarmStore.connectWhenUp(url: server.connectionString) { error in
                failures.withLock { $0.append(error) }
            }
            #expect(try !store.identity().isEmpty, "the store answers once connected")
            let seen = failures.withLock { $0 }
            #expect(!seen.isEmpty)
            #expect(seen.allSatisfy { $0.isConnectionLost })
            #expect(seen.allSatisfy { $0.description.contains("connect to host=") })
        }
    }

    @Test func aMissingDatabaseIsNotWaitedFor() throws {
        try withTemporaryDirectory { dir in
            let server = try PrivatePostgres(directory: dir.appendingPathComponent("pg"))
            try server.start()
            defer { server.stop() }
            let url = server.connectionString.replacingOccurrences(of: "dbname=postgres", with: "dbname=nosuchdb")
            var waits = 0
            let error = #expect(throws: PostgresError.self) {
                _ = try FarmStore.connectWhenUp(url: url) { _ in waits += 1 }
            }
            #expect(waits == 0)
            #expect(error?.isConnectionLost == false)
            #expect(error?.description.contains("\"nosuchdb\" does not exist") == true)
        }
    }
}
