import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// One claim fills many workers' slots in one statement, with the same rules as one at a time.
@Suite struct BatchClaimTests {
    @Test func oneClaimFillsEveryRequestedSlotInQueueOrderAcrossJobs() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1", "w2", "w3")
        let older = try SchedulingTests.submit(store, chunks: 3)
        let newer = try SchedulingTests.submit(store, chunks: 4)

        let claimed = try store.claim(
            [
                ClaimRequest(worker: "w1", count: 2), ClaimRequest(worker: "w2", count: 0),
                ClaimRequest(worker: "w3", count: 5),
            ], leaseSeconds: 30)
        // w1 takes the older job's audio block and first chunk; w3 the rest of it, then the newer job's head.
        #expect(claimed.map(\.worker) == ["w1", "w1", "w3", "w3", "w3", "w3", "w3"])
        #expect(claimed.map(\.job) == [older, older, older, older, newer, newer, newer])
        #expect(claimed.map(\.kind) == [.audio, .video, .video, .video, .audio, .video, .video])
        #expect(claimed.map(\.work.index) == [0, 0, 1, 2, 0, 0, 1])
        #expect(Set(claimed.map(\.key)).count == claimed.count)
        #expect(claimed.allSatisfy { $0.key.attempt == 1 && $0.projectText == "{}" && $0.mediaRoot == "/media" })
        for chunk in claimed {
            #expect(try store.chunk(chunk.key.chunk)?.worker == chunk.worker)
            #expect(try SchedulingTests.outcomes(store, chunk: chunk.key.chunk).map(\.worker) == [chunk.worker])
        }
        #expect(try store.job(older)?.state == .running)
        #expect(try store.job(newer)?.state == .running)
        // What is left: the newer job's last three chunks, and no more.
        let rest = try store.claim([ClaimRequest(worker: "w2", count: 10)], leaseSeconds: 30)
        #expect(rest.map(\.work.index) == [2, 3])
        #expect(try store.claim([ClaimRequest(worker: "w1", count: 1)], leaseSeconds: 30).isEmpty)
    }

    @Test func aDrainingWorkerAndAPausedJobGetNothingFromABatch() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1", "w2")
        let paused = try SchedulingTests.submit(store, chunks: 2, priority: 9)
        let open = try SchedulingTests.submit(store, chunks: 2)
        _ = try store.setPaused(job: paused, true)
        try store.setDraining(worker: "w1", true)

        let claimed = try store.claim(
            [ClaimRequest(worker: "w1", count: 3), ClaimRequest(worker: "w2", count: 3)], leaseSeconds: 30)
        #expect(claimed.map(\.worker) == ["w2", "w2", "w2"])
        #expect(claimed.allSatisfy { $0.job == open })
    }

    @Test func oneStatementRecordsTheHeartbeatsOfManyWorkers() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1", "w2")
        _ = try SchedulingTests.submit(store, chunks: 3)
        let mine = try store.claim([ClaimRequest(worker: "w1", count: 2)], leaseSeconds: 30).map(\.key)
        let theirs = try store.claim([ClaimRequest(worker: "w2", count: 1)], leaseSeconds: 30).map(\.key)
        let made = AttemptKey(chunk: 999_999, attempt: 1)
        try store.setDraining(worker: "w2", true)
        let info = { (id: String) in WorkerInfo(id: id, host: "h-\(id)", cores: 4, slots: 2, version: "9.9") }

        let outcome = try store.recordHeartbeats(
            [
                FarmStore.HeartbeatReport(worker: info("w1"), holding: mine + theirs + [made]),
                FarmStore.HeartbeatReport(worker: info("w2"), holding: theirs),
                FarmStore.HeartbeatReport(worker: info("w3"), holding: []),
            ], leaseSeconds: 60)
        #expect(outcome.stale == ["w1": theirs + [made]])
        #expect(outcome.draining == ["w2"])
        let workers = try store.workerStatuses()
        #expect(workers.map(\.id) == ["w1", "w2", "w3"])
        #expect(workers.map(\.host) == ["h-w1", "h-w2", "h-w3"])
        #expect(workers.map(\.state) == [.rendering, .draining, .idle])
        #expect(workers.allSatisfy { $0.slots == 2 && $0.version == "9.9" })
        #expect(try store.recordHeartbeats([], leaseSeconds: 60).stale.isEmpty)
    }

    @Test func progressOfManyAttemptsIsRecordedOnlyForTheWorkerThatHoldsEach() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1", "w2")
        let job = try SchedulingTests.submit(store, chunks: 2)
        let claimed = try store.claim([ClaimRequest(worker: "w1", count: 3)], leaseSeconds: 30)
        try store.recordProgress(
            [
                FarmStore.ProgressRecord(key: claimed[1].key, worker: "w1", frames: 7, fps: 12.5),
                FarmStore.ProgressRecord(key: claimed[2].key, worker: "w2", frames: 9, fps: 3),
            ])
        let chunks = try store.jobDetail(job).chunks.filter { $0.kind == .video }
        #expect(chunks.map(\.framesDone) == [7, 0])
        #expect(chunks.first?.fps == 12.5)
    }

    /// `farm status JOB` lists a screenful of the chunks rendering: the first in chunk order.
    @Test func aJobsDetailListsAtMostTheChunksAskedFor() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1")
        let job = try SchedulingTests.submit(store, chunks: 6)
        let claimed = try store.claim([ClaimRequest(worker: "w1", count: 10)], leaseSeconds: 30)
        let all = try store.jobDetail(job, everyChunk: false).chunks
        #expect(all.count == claimed.count && all.allSatisfy { $0.state == .running })
        let listed = try store.jobDetail(job, everyChunk: false, limit: 3)
        let identity = { (chunk: ChunkStatus) in "\(chunk.kind) \(chunk.index)" }
        #expect(listed.chunks.map(identity) == all.prefix(3).map(identity))
        #expect(listed.job.chunks.running == claimed.count)
    }

    @Test func aChunkWhoseLeaseRanOutGoesToAnotherWorkerWhileThereIsOne() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1", "w2")
        _ = try SchedulingTests.submit(store, chunks: 2)
        let audio = try #require(try store.claim([ClaimRequest(worker: "w1", count: 1)], leaseSeconds: 0).first)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try store.expireLeases() == [audio.key])

        // w1 went silent on the audio block: asked first, it gets the next chunk, w2 the block.
        let claimed = try store.claim(
            [ClaimRequest(worker: "w1", count: 1), ClaimRequest(worker: "w2", count: 1)], leaseSeconds: 30)
        #expect(claimed.map(\.worker) == ["w1", "w2"])
        #expect(claimed.map(\.kind) == [.video, .audio])
        #expect(claimed.last?.key.attempt == 2)
        // With no one else alive, w1 gets it back.
        try store.giveBack(try #require(claimed.last).key, reason: "w2 is going away")
        try store.workerLost("w2")
        #expect(try store.claim([ClaimRequest(worker: "w1", count: 1)], leaseSeconds: 30).first?.kind == .audio)
    }

    @Test func namesThatArrayLiteralsWouldMangleGoThroughABatchIntact() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let names = ["a\"b", "c\\d", "NULL", "{e,f}", " g ", "h'i"]
        let reports = names.map { name in
            FarmStore.HeartbeatReport(
                worker: WorkerInfo(id: name, host: name, cores: 1, slots: 1, version: "1"), holding: [])
        }
        _ = try store.recordHeartbeats(reports, leaseSeconds: 10)
        let stored = try store.workerStatuses()
        #expect(Set(stored.map(\.id)) == Set(names))
        #expect(stored.allSatisfy { $0.host == $0.id })
        _ = try SchedulingTests.submit(store, chunks: 1)
        let claimed = try store.claim(names.map { ClaimRequest(worker: $0, count: 1) }, leaseSeconds: 30)
        #expect(claimed.map(\.worker) == Array(names.prefix(2)))
    }
}
