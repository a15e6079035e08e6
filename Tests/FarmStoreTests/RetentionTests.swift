import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm prune` asks, the coordinator removes: only finished jobs' segments go, inside the
/// job's lock, and a retried job's folder is measured again when it ends.
@Suite struct RetentionTests {
    @Test func onlyFinishedJobsArePrunedAndARetryStartsAfresh() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try SchedulingTests.submit(store, chunks: 2)
        #expect(throws: FarmControlError.conflict("job \(job) is queued; only a finished job's segments can go")) {
            try store.requestPrune(job: job, olderThan: nil)
        }
        #expect(throws: FarmControlError.noSuchJob(job + 100)) {
            try store.requestPrune(job: job + 100, olderThan: nil)
        }
        #expect(try store.jobsToMeasure().isEmpty, "a running job's folder is still filling")

        try store.connection.query("UPDATE jobs SET state = 'done', finished_at = now() WHERE id = $1", [String(job)])
        #expect(try store.jobsToMeasure() == [job])
        try store.recordSegmentBytes(job, bytes: 123_456)
        #expect(try store.jobStatuses(id: job).first?.segmentBytes == 123_456)
        #expect(try store.segmentUsage().bytes == 123_456)
        // Ended just now: not older than a day, and not due under a day's keep.
        #expect(try store.requestPrune(job: nil, olderThan: 86400).isEmpty)
        #expect(try store.jobsToPrune(keep: 86400).isEmpty)
        #expect(try store.jobsToPrune(keep: 0) == [job], "due under --keep-segments 0")

        let asked = try store.requestPrune(job: job, olderThan: nil)
        #expect(asked.map(\.job) == [job] && asked.map(\.bytes) == [123_456])
        #expect(try store.jobsToPrune(keep: nil) == [job])
        var removed = false
        #expect(try store.prune(job) { removed = true })
        #expect(removed)
        #expect(try store.jobsToPrune(keep: 0).isEmpty, "pruned once")
        #expect(try store.jobStatuses(id: job).first?.segmentBytes == 0)
        #expect(try store.requestPrune(job: job, olderThan: nil).isEmpty, "nothing left to ask for")

        // A retry reopens it: its folder fills again and is measured when it ends.
        _ = try store.retry(job: job, chunk: 0)
        #expect(try store.jobStatuses(id: job).first?.segmentBytes == nil)
        #expect(try store.prune(job) { Issue.record("a running job's segments were removed") } == false)
    }
}
