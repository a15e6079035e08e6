import FarmCore
import Foundation
import Synchronization
import Testing

/// A thread lowered for background work runs at nice 10; the thread that started it keeps its
/// own priority (Linux's `setpriority` on a thread id changes that thread alone).
@Suite struct ThreadPriorityTests {
    /// Field 19 of /proc/thread-self/stat: the calling thread's nice value.
    static func nice() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)
        // The command name (field 2) may hold spaces: count from the parenthesis that ends it.
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        return try #require(Int(fields[16]))
    }

    @Test func aLoweredThreadRunsAtNiceTenAndTheOthersDoNot() throws {
        let before = try Self.nice()
        let seen = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            ThreadPriority.lower()
            seen.withLock { $0 = try? Self.nice() }
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(seen.withLock { $0 } == before + 10 || seen.withLock { $0 } == 19)
        #expect(try Self.nice() == before, "the caller's thread is not lowered")
    }
}
