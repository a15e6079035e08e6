import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// Pools and kinds of render node in the claim (migration 19): a job's chunks go only to
/// workers whose tags cover its requirements, and all to workers of one kind.
@Suite struct PoolRoutingTests {
    static func kind(x264: String) -> RenderNodeKind {
        RenderNodeKind(farm: "0.6.0", renderer: 4, ffmpeg: "libavcodec 59.37.100", x264: x264, fonts: "f0")
    }

    static func seen(_ store: FarmStore, _ id: String, slots: Int = 4, tags: [String] = [], kind: RenderNodeKind? = nil)
        throws
    {
        try store.workerSeen(
            WorkerInfo(id: id, host: id, cores: 2, slots: slots, version: "0.6.0", tags: tags, kind: kind),
            rendering: false)
    }

    static func submit(_ store: FarmStore, chunks: Int, requires: [String] = []) throws -> Int64 {
        var job = JobSubmission(
            name: "job", projectFile: "/p.json", projectText: "{}", mediaRoot: "/media", outputPath: "/out.mp4",
            container: .mp4, fps: Rational(30), frameCount: Int64(chunks * 10), width: 64, height: 64, priority: 0,
            chunks: (0..<chunks).map { Chunk(index: $0, start: Int64($0 * 10), end: Int64($0 * 10 + 10)) },
            audioBlocks: [], sampleRate: 48000)
        job.requires = requires
        return try store.submit(job)
    }

    static func claims(_ store: FarmStore, _ workers: [(String, Int)]) throws -> [ClaimedChunk] {
        try store.claim(workers.map { ClaimRequest(worker: $0.0, count: $0.1) }, leaseSeconds: 30)
    }

    @Test func aJobRequiringATagGoesOnlyToWorkersWithIt() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "plain")
        try Self.seen(store, "big", tags: ["4k", "site-a"])
        let job = try Self.submit(store, chunks: 6, requires: ["4k"])
        let untagged = try Self.submit(store, chunks: 2)

        // The plain worker asks first, with room for everything: it gets only the other job's.
        let claimed = try Self.claims(store, [("plain", 4), ("big", 4)])
        #expect(claimed.filter { $0.job == job }.allSatisfy { $0.worker == "big" })
        #expect(claimed.filter { $0.job == job }.count == 4)
        #expect(claimed.filter { $0.worker == "plain" }.allSatisfy { $0.job == untagged })
        #expect(claimed.filter { $0.worker == "plain" }.count == 2)
    }

    @Test func statusSaysWhenNoLiveWorkerHasTheTags() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "plain")
        let job = try Self.submit(store, chunks: 2, requires: ["4k", "gpu"])
        #expect(try Self.claims(store, [("plain", 4)]).isEmpty)
        let status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.waitingFor == "no worker has tags 4k,gpu")
        #expect(status.requires == ["4k", "gpu"])

        try Self.seen(store, "big", tags: ["gpu", "4k"])
        #expect(try store.jobStatuses(id: job).first?.waitingFor == nil)
        #expect(try Self.claims(store, [("big", 4)]).count == 2)
        #expect(try store.workerStatuses().first { $0.id == "big" }?.tags == ["gpu", "4k"])
    }

    @Test func oneKindRendersAJobAndAnotherKindGetsOtherWork() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let avx2 = Self.kind(x264: "MMX2,SSE2Fast,SSSE3,SSE4.2,AVX,FMA3,BMI2,AVX2")
        let sse = Self.kind(x264: "MMX2,SSE2Fast,SSSE3,SSE4.2")
        try Self.seen(store, "new", kind: avx2)
        try Self.seen(store, "old", kind: sse)
        let job = try Self.submit(store, chunks: 10)

        // Both ask in one claim: the first claimant's kind takes the job, the other none of it.
        let first = try Self.claims(store, [("new", 2), ("old", 2)])
        #expect(first.map(\.worker) == ["new", "new"])
        #expect(try Self.claims(store, [("old", 4)]).isEmpty)
        let status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.renderKind == avx2.summary)
        #expect(status.waitingFor == nil)

        // Another job is the other kind's to take.
        let other = try Self.submit(store, chunks: 3)
        let second = try Self.claims(store, [("old", 4)])
        #expect(second.map(\.job) == [other, other, other])

        // With only the other kind live, the first job says why it waits.
        try store.workerLost("new")
        for claimed in first { try store.giveBack(claimed.key, reason: "test") }
        #expect(try Self.claims(store, [("old", 4)]).isEmpty)
        let waiting = try #require(try store.jobStatuses(id: job).first?.waitingFor)
        #expect(waiting.hasPrefix("no live worker of the kind that renders it (farm 0.6.0, renderer 4, x264 AVX2"))
        // Every attempt records its worker's kind.
        let kinds = try store.connection.query(
            "SELECT DISTINCT node_kind FROM attempts a JOIN chunks c ON c.id = a.chunk_id WHERE c.job_id = $1",
            [String(job)]
        )
        .map { try $0.decode("node_kind", as: String.self) }
        #expect(kinds == [avx2.signature])
    }

    @Test func workersOlderThanKindsShareTheirReleaseAsOneKind() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try Self.seen(store, "a")
        try Self.seen(store, "b")
        _ = try Self.submit(store, chunks: 4)
        #expect(Set(try Self.claims(store, [("a", 2), ("b", 2)]).map(\.worker)) == ["a", "b"])
        #expect(try store.workerStatuses().map(\.kind) == ["farm-0.6.0", "farm-0.6.0"])
    }

    @Test func theCacheReusesOnlySegmentsOfALiveWorkersKind() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let avx2 = Self.kind(x264: "AVX2")
        let sse = Self.kind(x264: "SSE4.2")
        try Self.seen(store, "maker", kind: avx2)
        // A job whose two chunks were rendered by `maker` and kept under their keys.
        func submit() throws -> Int64 {
            var job = JobSubmission(
                name: "job", projectFile: "/p.json", projectText: "{}", mediaRoot: "/media", outputPath: "/out.mp4",
                container: .mp4, fps: Rational(30), frameCount: 20, width: 64, height: 64, priority: 0,
                chunks: [Chunk(index: 0, start: 0, end: 10), Chunk(index: 1, start: 10, end: 20)], audioBlocks: [],
                sampleRate: 48000)
            job.videoKeys = ["key-0", "key-1"]
            return try store.submit(job)
        }
        let first = try submit()
        for claimed in try Self.claims(store, [("maker", 2)]) {
            #expect(try store.accept(claimed.key, made: .frames(10, fps: 10), bytes: 1))
            try store.cacheSegment(
                key: "key-\(claimed.work.index)", folder: "here", kind: .video, bytes: 1, sha256: "00",
                made: claimed.key)
        }
        #expect(try store.job(first) != nil)

        // Upgraded in place: the only live worker is another kind, so nothing is reused.
        try store.workerLost("maker")
        try Self.seen(store, "upgraded", kind: sse)
        let afterUpgrade = try submit()
        #expect(try store.reusedChunkCount(job: afterUpgrade) == 0)
        #expect(try store.jobStatuses(id: afterUpgrade).first?.renderKind == nil)

        // With a worker of the maker's kind live again, both chunks are reused and the job is
        // that kind's.
        try Self.seen(store, "maker", kind: avx2)
        let again = try submit()
        #expect(try store.reusedChunkCount(job: again) == 2)
        #expect(try store.jobStatuses(id: again).first?.renderKind == avx2.summary)
    }
}
