import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// What operators read while a job renders: speeds now rather than lifetime averages, no ETA
/// where nothing would finish the job, and an ended job's chunks never shown as queued.
@Suite struct LiveNumbersTests {
    /// A farm with a coordinator serving, worker `w` holding two chunks of a 10-chunk job and
    /// reporting 5 frames at `fps` each.
    static func rendering(fps: Double) throws -> (FarmStore, Int64, [ClaimedChunk]) {
        let store = try FarmStore(url: TestDatabase.create())
        try store.recordCoordinatorServing()
        try PoolRoutingTests.seen(store, "w", slots: 2)
        let job = try PoolRoutingTests.submit(store, chunks: 10)
        let claimed = try PoolRoutingTests.claims(store, [("w", 2)])
        try store.recordProgress(
            claimed.map { FarmStore.ProgressRecord(key: $0.key, worker: "w", frames: 5, fps: fps) })
        return (store, job, claimed)
    }

    @Test func aJobsSpeedIsItsRenderingChunksSpeedsNow() throws {
        let (store, job, _) = try Self.rendering(fps: 4)
        let status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.fps == 8)
        // 100 frames, 10 of them done: 90 left at 8 a second.
        #expect(status.etaSeconds == 90.0 / 8)
        let worker = try #require(try store.workerStatuses().first)
        #expect(worker.currentFps == 8)
        #expect(worker.averageFps == nil)
    }

    @Test func aPausedJobHasNoETA() throws {
        let (store, job, _) = try Self.rendering(fps: 4)
        _ = try store.setPaused(job: job, true)
        let status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.paused)
        #expect(status.etaSeconds == nil)
    }

    @Test func withoutACoordinatorThereIsNoETA() throws {
        let (store, job, _) = try Self.rendering(fps: 4)
        try store.recordCoordinatorStopped()
        #expect(try store.jobStatuses(id: job).first?.etaSeconds == nil)
    }

    @Test func aCancelledJobsChunksAreUnfinishedNotQueued() throws {
        let (store, job, claimed) = try Self.rendering(fps: 4)
        #expect(try store.accept(claimed[0].key, made: .frames(10, fps: 4)))
        _ = try store.cancel(job: job)
        _ = try store.stopAttemptsOfFinishedJobs()
        let status = try #require(try store.jobStatuses(id: job).first)
        #expect(
            status.chunks == ChunkCounts(queued: 0, running: 0, done: 1, failed: 0, total: 10, unfinished: 9))
        #expect(status.fps == nil && status.etaSeconds == nil)
        let metrics = try store.metrics()
        #expect(metrics.chunks.queued == 0 && metrics.chunks.unfinished == 9)
    }
}
