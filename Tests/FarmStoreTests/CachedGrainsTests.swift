import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// A chunk an edit changed in part takes its unchanged GOPs from the cache
/// (`JobSubmission.reuseCachedGrains`): each chunk planned is keyed as that span would be on
/// its own, so the coordinator finds what it needs, and the same edit submitted again finds it all.
@Suite struct CachedGrainsTests {
    /// SpreadUncachedTests' job (12 s at 30 fps, GOP 30, a title at 6-8 s, 4-second chunks),
    /// with its GOPs keyed as a submission keys them.
    static func submission() throws -> JobSubmission {
        var job = try SpreadUncachedTests.submission()
        let project = try #require(job.project)
        job.grainLength = ChunkGrains.length(of: project.export, container: .mp4)
        job.grainKeys = ChunkGrains.keys(of: project, chunks: job.chunks, container: .mp4, pins: job.mediaPins)
        return job
    }

    /// Every chunk's key and GOP keys are those of its span keyed alone.
    static func expectKeyedAsAlone(_ job: JobSubmission) throws {
        let project = try #require(job.project)
        #expect(job.videoKeys == ChunkKeys.keys(of: project, work: job.chunks, container: .mp4, pins: job.mediaPins))
        #expect(
            job.grainKeys == ChunkGrains.keys(of: project, chunks: job.chunks, container: .mp4, pins: job.mediaPins))
    }

    @Test func aChunkIsCutIntoGOPsOnTheTimelinesGrid() throws {
        #expect(ChunkGrains.grains(of: Chunk(index: 0, start: 0, end: 30), length: 30).isEmpty)
        #expect(
            ChunkGrains.grains(of: Chunk(index: 3, start: 60, end: 145), length: 30).map { [$0.start, $0.end] }
                == [[60, 90], [90, 120], [120, 145]])
        let job = try Self.submission()
        #expect(job.grainLength == 30)
        #expect(job.grainKeys.map(\.count) == [4, 4, 4])
        // A GOP's key is its span's as a chunk: what the cache keeps a one-GOP chunk under.
        let project = try #require(job.project)
        let gop = Chunk(index: 0, start: 150, end: 180)
        #expect(
            job.grainKeys[1][1] == ChunkKeys.keys(of: project, work: [gop], container: .mp4, pins: job.mediaPins)[0])
    }

    @Test func exportsWhoseChunksAreNotEncodedAGOPAtATimeKeepChunksWhole() throws {
        let project = try #require(try Self.submission().project)
        var export = project.export
        #expect(ChunkGrains.length(of: export, container: .frames) == nil)
        export.video.lossless = true
        #expect(ChunkGrains.length(of: export, container: .mp4) == nil)
        export.video.lossless = false
        export.video.codec = .prores
        #expect(ChunkGrains.length(of: export, container: .mov) == nil)
    }

    @Test func theCachedGOPsOfAChangedChunkAreChunksOfTheirOwnAndTheRestOneRun() throws {
        let whole = try Self.submission()
        // The edit changed the title (frames 180-240): chunk 1's first two GOPs are cached.
        let cached = Set([whole.videoKeys[0], whole.videoKeys[2], whole.grainKeys[1][0], whole.grainKeys[1][1]])
        var job = whole
        job.reuseCachedGrains(cached: cached)
        #expect(SpreadUncachedTests.spans(job) == ["0:0-120", "1:120-150", "2:150-180", "3:180-240", "4:240-360"])
        #expect(job.videoKeys[1] == whole.grainKeys[1][0] && job.videoKeys[2] == whole.grainKeys[1][1])
        #expect(!cached.contains(job.videoKeys[3]))
        #expect(job.grainKeys[3] == [whole.grainKeys[1][2], whole.grainKeys[1][3]])
        try Self.expectKeyedAsAlone(job)

        // Then spread over two slots: the run in two GOPs, each keyed alone.
        job.spreadUncached(over: 2, cached: cached)
        #expect(
            SpreadUncachedTests.spans(job) == [
                "0:0-120", "1:120-150", "2:150-180", "3:180-210", "4:210-240", "5:240-360",
            ])
        try Self.expectKeyedAsAlone(job)
        #expect(job.videoKeys[3] == whole.grainKeys[1][2] && job.videoKeys[4] == whole.grainKeys[1][3])
    }

    @Test func cachedGOPsThatFollowEachOtherInOneSegmentAreOneChunkCutFromIt() throws {
        let whole = try Self.submission()
        let gops = whole.grainKeys[1]
        // GOPs 0-1 of chunk 1 lie in segment "old" from its frame 30; GOP 2 in another segment.
        let places = [
            gops[0]: JobSubmission.CachedGrain(segment: "old", first: 30),
            gops[1]: JobSubmission.CachedGrain(segment: "old", first: 60),
            gops[2]: JobSubmission.CachedGrain(segment: "other", first: 90),
        ]
        var job = whole
        let cuts = job.reuseCachedGrains(
            cached: Set([whole.videoKeys[0], whole.videoKeys[2]] + gops.prefix(3)), places: places)
        #expect(SpreadUncachedTests.spans(job) == ["0:0-120", "1:120-180", "2:180-210", "3:210-240", "4:240-360"])
        #expect(cuts.map { "\($0.chunk) \($0.segment) \($0.frames)" } == ["1 old 30..<90"])
        #expect(job.grainKeys[1] == Array(gops.prefix(2)) && job.videoKeys[2] == gops[2] && job.videoKeys[3] == gops[3])
        try Self.expectKeyedAsAlone(job)
    }

    @Test func nothingIsCutWhereNoGOPIsCachedOrTheChunkIs() throws {
        let whole = try Self.submission()
        var none = whole
        none.reuseCachedGrains(cached: [whole.videoKeys[0]])
        #expect(
            SpreadUncachedTests.spans(none) == SpreadUncachedTests.spans(whole) && none.videoKeys == whole.videoKeys)
        // A chunk cached whole is taken whole, though its GOPs are cached too.
        var kept = whole
        kept.reuseCachedGrains(cached: Set(whole.videoKeys + whole.grainKeys.flatMap { $0 }))
        #expect(SpreadUncachedTests.spans(kept) == SpreadUncachedTests.spans(whole))
        #expect(whole.grainKeys(uncachedIn: [whole.videoKeys[0], whole.videoKeys[2]]) == whole.grainKeys[1])
    }
}
