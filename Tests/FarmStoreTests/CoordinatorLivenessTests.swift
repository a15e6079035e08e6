import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm status`, `watch`, `wait` and `workers` say "no coordinator since …" instead of showing
/// a job queued for ever: the leading coordinator records itself every few seconds and says
/// when it stops.
@Suite struct CoordinatorLivenessTests {
    static func warning(_ store: FarmStore, _ job: Int64) throws -> String? {
        try #require(try store.jobStatuses(id: job).first).warning
    }

    @Test func aJobSaysWhenNoCoordinatorServesItsFarm() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try SchedulingTests.submit(store, chunks: 3)
        #expect(try store.coordinatorLiveness().isServing == false)
        #expect(
            try Self.warning(store, job)
                == "no coordinator has run on this farm yet: nothing renders until `farm serve` starts")

        try store.recordCoordinatorServing()
        #expect(try store.coordinatorLiveness().isServing)
        #expect(try Self.warning(store, job) == nil)

        // A coordinator killed without a word: its record ages past the silence.
        try store.connection.query("UPDATE farm_identity SET coordinator_seen_at = now() - interval '3 minutes'")
        let silent = try #require(try Self.warning(store, job))
        #expect(silent.hasPrefix("no coordinator since "))
        #expect(silent.contains("(it stopped answering 3 min ago)"), "\(silent)")

        try store.recordCoordinatorServing()
        try store.recordCoordinatorStopped()
        let stopped = try #require(try Self.warning(store, job))
        #expect(stopped.contains("(it stopped ") && stopped.contains(" s ago)"), "\(stopped)")

        // A finished job is not held up by anything.
        try store.connection.query("UPDATE jobs SET state = 'done', finished_at = now() WHERE id = $1", [String(job)])
        #expect(try Self.warning(store, job) == nil)
    }
}
