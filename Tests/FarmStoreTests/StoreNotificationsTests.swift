import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// Live views hear the farm through the store's LISTEN API, never its connection: a store that
/// listens on `farm` hears each change of a job as that job's id.
@Suite struct StoreNotificationsTests {
    @Test func aListeningStoreHearsAJobChange() throws {
        let url = try TestDatabase.create()
        let listener = try FarmStore(url: url)
        try listener.listen(.farm)
        #expect(try listener.notifications(timeout: .zero).isEmpty)
        let job = try SchedulingTests.submit(FarmStore(url: url), chunks: 1)
        #expect(try listener.notifications(timeout: .seconds(5)) == [String(job)])
        #expect(try listener.notifications(timeout: .milliseconds(100)).isEmpty, "each notice is heard once")
    }
}
