import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// The store's scheduling rules against a real PostgreSQL: claims, the attempt fence, lease
/// expiry and the per-worker blocklist, without a coordinator in between.
@Suite struct SchedulingTests {
    /// A job of `chunks` video chunks of 10 frames and one audio block, straight into the store.
    static func submit(_ store: FarmStore, chunks: Int, priority: Int = 0) throws -> Int64 {
        let planned = (0..<chunks).map { Chunk(index: $0, start: Int64($0 * 10), end: Int64($0 * 10 + 10)) }
        return try store.submit(
            JobSubmission(
                name: "job", projectFile: "/projects/job.json", projectText: "{}", mediaRoot: "/media",
                outputPath: "/out/job.mp4", container: .mp4, fps: Rational(30), frameCount: Int64(chunks * 10),
                width: 64, height: 64, priority: priority, chunks: planned,
                audioBlocks: [AudioBlock(index: 0, start: 0, end: 48000)], sampleRate: 48000))
    }

    static func seen(_ store: FarmStore, _ ids: String...) throws {
        for id in ids {
            try store.workerSeen(
                WorkerInfo(id: id, host: "host", cores: 2, slots: 1, version: FarmVersion.current), rendering: false)
        }
    }

    /// One heartbeat of `worker` holding `keys`; returns those no longer its own.
    static func renew(_ store: FarmStore, _ worker: String, _ keys: [AttemptKey], leaseSeconds: Double) throws
        -> [AttemptKey]
    {
        let info = WorkerInfo(id: worker, host: "host", cores: 2, slots: 1, version: FarmVersion.current)
        return try store.recordHeartbeats(
            [FarmStore.HeartbeatReport(worker: info, holding: keys)], leaseSeconds: leaseSeconds
        ).stale[worker] ?? []
    }

    /// (attempt, worker, outcome) of every attempt at a chunk, oldest first.
    static func outcomes(_ store: FarmStore, chunk: Int64) throws -> [(attempt: Int, worker: String, outcome: String)] {
        try store.connection.query(
            "SELECT attempt, worker_id, outcome FROM attempts WHERE chunk_id = $1 ORDER BY attempt", [String(chunk)]
        ).map { row in (try row.decode("attempt"), try row.decode("worker_id"), try row.decode("outcome")) }
    }

    @Test func claimsHandOutTheAudioFirstThenFramesInOrderEachOnce() throws {
        let url = try TestDatabase.create()
        let store = try FarmStore(url: url)
        let other = try FarmStore(url: url)
        try Self.seen(store, "w1", "w2")
        let job = try Self.submit(store, chunks: 3)

        // Two claimers on separate connections, alternating: every chunk goes out exactly once.
        var claimed: [ClaimedChunk] = []
        while let next = try (claimed.count.isMultiple(of: 2) ? store : other)
            .claim(worker: claimed.count.isMultiple(of: 2) ? "w1" : "w2", leaseSeconds: 30)
        {
            claimed.append(next)
        }
        #expect(claimed.map(\.kind) == [.audio, .video, .video, .video])
        #expect(claimed.dropFirst().map(\.work.index) == [0, 1, 2])
        #expect(claimed.dropFirst().map(\.work.start) == [0, 10, 20])
        #expect(claimed.allSatisfy { $0.key.attempt == 1 && $0.job == job && $0.projectText == "{}" })
        #expect(Set(claimed.map(\.key)).count == 4)
        #expect(try store.job(job)?.state == .running)
        #expect(try store.chunk(claimed[1].key.chunk)?.state == .running)
        #expect(try store.chunk(claimed[1].key.chunk)?.worker == "w2")
    }

    @Test func higherPriorityJobsAreClaimedFirst() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "w1")
        let low = try Self.submit(store, chunks: 1)
        let high = try Self.submit(store, chunks: 1, priority: 5)
        let first = try #require(try store.claim(worker: "w1", leaseSeconds: 30))
        #expect(first.job == high)
        _ = try store.claim(worker: "w1", leaseSeconds: 30)
        #expect(try store.claim(worker: "w1", leaseSeconds: 30)?.job == low)
    }

    @Test func theFenceRejectsAnAttemptThatIsNoLongerCurrent() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "w1", "w2")
        _ = try Self.submit(store, chunks: 0)
        let first = try #require(try store.claim(worker: "w1", leaseSeconds: 0))
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try store.expireLeases() == [first.key])
        let second = try #require(try store.claim(worker: "w2", leaseSeconds: 30))
        #expect(second.key == AttemptKey(chunk: first.key.chunk, attempt: 2))

        #expect(try store.current(first.key) == nil)
        #expect(try store.accept(first.key, made: .frames(0, fps: 10)) == false)
        #expect(try store.chunk(first.key.chunk)?.state == .running)
        #expect(try store.accept(second.key, made: .frames(0, fps: 10)) == true)
        let chunk = try #require(try store.chunk(first.key.chunk))
        #expect(chunk.state == .done)
        #expect(chunk.attempt == 2)
        let history = try Self.outcomes(store, chunk: first.key.chunk)
        #expect(history.map(\.outcome) == ["lost", "done"])
        #expect(history.map(\.worker) == ["w1", "w2"])
        // A late failure report from the old attempt changes nothing either.
        #expect(try store.fail(first.key, error: "late") == nil)
        #expect(try store.chunk(first.key.chunk)?.state == .done)
    }

    /// A chunk whose workers keep going silent on it (a crash in a decoder, every time) fails
    /// its job at the fourth lost attempt instead of taking workers down forever.
    @Test func aChunkThatKeepsLosingItsWorkersFailsItsJob() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "w1", "w2", "w3", "w4")
        let job = try Self.submit(store, chunks: 0)
        var chunk: Int64 = 0
        for (index, worker) in ["w1", "w2", "w3", "w4"].enumerated() {
            #expect(try store.job(job)?.state != .failed, "failed after \(index) losses")
            let claimed = try #require(try store.claim(worker: worker, leaseSeconds: 0))
            chunk = claimed.key.chunk
            Thread.sleep(forTimeInterval: 0.05)
            #expect(try store.expireLeases() == [claimed.key])
        }
        let record = try #require(try store.job(job))
        #expect(record.state == .failed)
        #expect(record.error?.hasPrefix("audio block 0 failed or lost its worker on 4 attempts") == true)
        #expect(try Self.outcomes(store, chunk: chunk).map(\.outcome) == ["lost", "lost", "lost", "lost"])
    }

    @Test func leasesRenewWhileHeardAndExpireWhenSilent() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "w1")
        _ = try Self.submit(store, chunks: 0)
        let claimed = try #require(try store.claim(worker: "w1", leaseSeconds: 2))
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try Self.renew(store, "w1", [claimed.key], leaseSeconds: 2).isEmpty)
        Thread.sleep(forTimeInterval: 1)
        // Renewed a second ago for two: still live, though the first lease has run out.
        #expect(try store.expireLeases().isEmpty)
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try store.expireLeases() == [claimed.key])
        #expect(try store.chunk(claimed.key.chunk)?.state == .queued)
        let history = try store.connection.query(
            "SELECT outcome, error FROM attempts WHERE chunk_id = $1", [String(claimed.key.chunk)])
        #expect(try history.map { try $0.decode("outcome", as: String.self) } == ["lost"])
        #expect(try history.first?.decode("error", as: String?.self) == "lease expired: worker went silent")
        // The worker reports it again later: it is told the attempt is stale.
        #expect(try Self.renew(store, "w1", [claimed.key], leaseSeconds: 30) == [claimed.key])
    }

    @Test func aWorkerThatFailedAChunkLeavesItToOthersAndIsKeptFromTheJobAfterThreeChunks() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "w1", "w2")
        let job = try Self.submit(store, chunks: 4)
        let audio = try #require(try store.claim(worker: "w2", leaseSeconds: 30))
        #expect(audio.kind == .audio)

        let chunk0 = try #require(try store.claim(worker: "w1", leaseSeconds: 30))
        #expect(chunk0.work.index == 0)
        #expect(try store.fail(chunk0.key, error: "decoder broke") == nil)
        // Chunk 0 is queued again, but w1 failed it while w2 has not: w1 gets chunk 1.
        let chunk1 = try #require(try store.claim(worker: "w1", leaseSeconds: 30))
        #expect(chunk1.work.index == 1)
        let retry0 = try #require(try store.claim(worker: "w2", leaseSeconds: 30))
        #expect(retry0.work.index == 0)
        #expect(retry0.key.attempt == 2)

        #expect(try store.fail(chunk1.key, error: "decoder broke") == nil)
        let chunk2 = try #require(try store.claim(worker: "w1", leaseSeconds: 30))
        #expect(chunk2.work.index == 2)
        #expect(try store.fail(chunk2.key, error: "decoder broke") == nil)
        // Three failed chunks of this job: w1 gets nothing more of it, though chunks wait.
        #expect(try store.claim(worker: "w1", leaseSeconds: 30) == nil)
        #expect(try store.claim(worker: "w2", leaseSeconds: 30)?.work.index == 1)
        #expect(try store.job(job)?.state == .running)
    }

    @Test func aChunkThatFailsThreeTimesFailsItsJobWithTheError() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "w1")
        let job = try Self.submit(store, chunks: 0)
        var failedJob: Int64?
        for attempt in 1...3 {
            let claimed = try #require(try store.claim(worker: "w1", leaseSeconds: 30))
            #expect(claimed.key.attempt == attempt)
            failedJob = try store.fail(claimed.key, error: "no sound could be decoded")
        }
        #expect(failedJob == job)
        let record = try #require(try store.job(job))
        #expect(record.state == .failed)
        #expect(record.error == "audio block 0 failed on 3 attempts: no sound could be decoded")
        #expect(try store.claim(worker: "w1", leaseSeconds: 30) == nil)
    }

    /// Workers an earlier coordinator left listed as live (it was killed before it could say
    /// they were gone) hold back a block its live workers failed, waiting for a worker that
    /// never comes, until marked lost; then the live workers take it again and the job ends.
    @Test func workersOfAKilledCoordinatorStopHoldingBackAFailedBlock() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "old-1", "old-2", "w1", "w2")
        try store.connection.query(
            "UPDATE workers SET state = 'rendering', last_seen = now() - interval '1 hour' WHERE id LIKE 'old-%'")
        let job = try Self.submit(store, chunks: 0)
        for worker in ["w1", "w2"] {
            let claimed = try #require(try store.claim(worker: worker, leaseSeconds: 30))
            #expect(try store.fail(claimed.key, error: "no sound could be decoded") == nil)
        }
        // old-1 and old-2 have not failed it, and count as live.
        #expect(try store.claim(worker: "w1", leaseSeconds: 30) == nil)

        // w1 and w2 are this coordinator's, heard now; and a worker silent for less than the
        // lease stays live.
        try Self.seen(store, "recent")
        try store.connection.query("UPDATE workers SET last_seen = now() - interval '5 seconds' WHERE id = 'recent'")
        let lost = try store.markSilentWorkersLost(after: 10, besides: ["w1", "w2"])
        #expect(lost.sorted() == ["old-1", "old-2"])
        #expect(try store.markSilentWorkersLost(after: 10, besides: []).isEmpty)
        try store.connection.query("UPDATE workers SET state = 'lost' WHERE id = 'recent'")

        let third = try #require(try store.claim(worker: "w1", leaseSeconds: 30))
        #expect(third.key.attempt == 3)
        #expect(try store.fail(third.key, error: "no sound could be decoded") == job)
        #expect(try store.job(job)?.error == "audio block 0 failed on 3 attempts: no sound could be decoded")
    }

    /// A rack lost at once: every lease it held runs out in one pass, each attempt marked lost,
    /// and only the chunk that has now lost its worker four times fails its job.
    @Test func manyLeasesExpireInOnePassAndOnlyAChunkAtItsFourthLossFailsItsJob() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let workers = (0..<6).map { "w\($0)" }
        for id in workers { try Self.seen(store, id) }
        let steady = try Self.submit(store, chunks: 40)
        let doomed = try Self.submit(store, chunks: 1, priority: 1)
        // The doomed job's audio block (claimed first, by priority) has lost three workers already.
        var doomedBlock: Int64 = 0
        for worker in workers.prefix(3) {
            let claimed = try #require(try store.claim(worker: worker, leaseSeconds: 0))
            doomedBlock = claimed.key.chunk
            Thread.sleep(forTimeInterval: 0.02)
            #expect(try store.expireLeases() == [claimed.key])
        }
        let claimed = try store.claim(
            workers.map { ClaimRequest(worker: $0, count: 5) }, leaseSeconds: 0)
        #expect(claimed.count == 30)
        #expect(claimed.contains { $0.key.chunk == doomedBlock })
        Thread.sleep(forTimeInterval: 0.05)

        let expired = try store.expireLeases()
        #expect(Set(expired) == Set(claimed.map(\.key)))
        for key in claimed.map(\.key) {
            let history = try Self.outcomes(store, chunk: key.chunk)
            #expect(history.first { $0.attempt == key.attempt }?.outcome == "lost", "chunk \(key.chunk)")
            #expect(try store.chunk(key.chunk)?.state == .queued)
        }
        #expect(try store.job(doomed)?.state == .failed)
        #expect(try store.job(doomed)?.error?.contains("lost its worker on 4 attempts") == true)
        #expect(try store.job(steady)?.state != .failed)
        #expect(try store.expireLeases().isEmpty)
    }

    /// A cancelled job's attempts all stop in one pass, each marked cancelled with the reason.
    @Test func aCancelledJobsRunningAttemptsStopTogether() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let workers = (0..<4).map { "w\($0)" }
        for id in workers { try Self.seen(store, id) }
        let job = try Self.submit(store, chunks: 20)
        let claimed = try store.claim(workers.map { ClaimRequest(worker: $0, count: 3) }, leaseSeconds: 60)
        #expect(claimed.count == 12)
        _ = try store.cancel(job: job)

        let stopped = try store.stopAttemptsOfFinishedJobs()
        #expect(Set(stopped.map(\.key)) == Set(claimed.map(\.key)))
        #expect(Set(stopped.map(\.worker)) == Set(workers))
        let errors = try store.connection.query(
            "SELECT DISTINCT outcome, error FROM attempts a JOIN chunks c ON c.id = a.chunk_id WHERE c.job_id = $1",
            [String(job)]
        ).map { "\(try $0.decode("outcome", as: String.self)): \(try $0.decode("error", as: String.self))" }
        #expect(errors == ["cancelled: job cancelled"])
        #expect(try store.stopAttemptsOfFinishedJobs().isEmpty)
    }

    @Test func aStateThisBuildDoesNotKnowIsAnErrorNotADefault() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try Self.submit(store, chunks: 1)
        // The CHECK constraint guards the column; a newer farm could widen it.
        try store.connection.query("ALTER TABLE jobs DROP CONSTRAINT jobs_state_check")
        try store.connection.query("UPDATE jobs SET state = 'archived' WHERE id = $1", [String(job)])
        let error = #expect(throws: PostgresDecodingError.self) { _ = try store.job(job) }
        #expect(error?.description == "column \"state\" of row 0 holds \"archived\", which does not decode as JobState")
    }
}
