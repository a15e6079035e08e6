import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The segment cache by GOP in PostgreSQL: a cached chunk of several GOPs enters each GOP
/// under its key, within the chunk's segment, which a later job reuses and which goes with it.
@Suite struct CachedGrainRowsTests {
    static func job(chunks: [Chunk], keys: [String], grains: [[String]]) -> JobSubmission {
        var job = JobSubmission(
            name: "job", projectFile: "/p.json", projectText: "{}", mediaRoot: "/media", outputPath: "/out.mp4",
            container: .mp4, fps: Rational(30), frameCount: chunks.last?.end ?? 0, width: 64, height: 64, priority: 0,
            chunks: chunks, audioBlocks: [], sampleRate: 48000)
        job.videoKeys = keys
        job.grainLength = 10
        job.grainKeys = grains
        return job
    }

    @Test func aCachedChunksGOPsAreEntriesWithinItReusedAndForgottenWithIt() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try PoolRoutingTests.seen(store, "maker", kind: PoolRoutingTests.kind(x264: "AVX2"))
        // Chunk 0 is three GOPs (the last one short), chunk 1 one GOP.
        let first = try store.submit(
            Self.job(
                chunks: [Chunk(index: 0, start: 0, end: 25), Chunk(index: 1, start: 25, end: 30)],
                keys: ["whole", "single"], grains: [["g0", "g1", "g2"], []]))
        for claimed in try PoolRoutingTests.claims(store, [("maker", 2)]) {
            #expect(try store.accept(claimed.key, made: .frames(claimed.work.index == 0 ? 25 : 5, fps: 10), bytes: 1))
            try store.cacheSegment(
                key: claimed.work.index == 0 ? "whole" : "single", folder: "here", kind: .video, bytes: 100,
                sha256: "sum-\(claimed.work.index)", made: claimed.key)
        }
        #expect(try store.job(first) != nil)
        #expect(try store.cachedKeys(among: ["whole", "g0", "g1", "g2", "single"], kind: .video).count == 5)
        // The GOPs are parts of a segment counted once.
        #expect(try store.cacheUsage() == (bytes: 200, segments: 2))

        // A job of the middle GOP and the last two: the GOP's entry names the segment and its frames.
        let again = try store.submit(
            Self.job(
                chunks: [Chunk(index: 0, start: 10, end: 20), Chunk(index: 1, start: 20, end: 25)],
                keys: ["g1", "g2"], grains: [[], []]))
        let reused = try store.reusedChunks(job: again).map {
            "\($0.index) \($0.key) \($0.sha256) in \($0.within?.key ?? "-") \($0.within.map { "\($0.frames)" } ?? "-")"
        }
        #expect(reused == ["0 g1 sum-0 in whole 10..<20", "1 g2 sum-0 in whole 20..<25"])

        // Forgetting the segment forgets its GOPs.
        try store.forgetCachedSegments(["whole"])
        #expect(try store.cachedKeys(among: ["whole", "g0", "g1", "g2", "single"], kind: .video) == ["single"])
    }
}
