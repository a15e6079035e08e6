import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm render` plans again the chunks an edit changed (`JobSubmission.spreadUncached`): split
/// on the export's GOP so every slot takes a part, the cached chunks kept with their keys.
@Suite struct SpreadUncachedTests {
    /// 12 seconds at 30 fps with a 30-frame GOP, a title at 6-8 s, in 4-second chunks.
    static func submission() throws -> JobSubmission {
        let json = """
            {"output": {"width": 320, "height": 180, "fps": 30},
             "export": {"video": {"codec": "h264", "crf": 20, "gop": 30}},
             "assets": {"a": {"path": "a.mp4"}},
             "tracks": [
               {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "12"}]},
               {"kind": "video", "items": [{"title": {"text": "Chapter one"}, "at": "6", "duration": "2"}]}]}
            """
        let (parsed, problems) = parseProjectText(json)
        let project = try #require(parsed, "\(problems)")
        var job = JobSubmission(
            name: "edit", projectFile: "/p.json", projectText: json, mediaRoot: "/media", outputPath: "/out.mp4",
            container: .mp4, fps: Rational(30), frameCount: project.frameCount, width: 320, height: 180, priority: 0,
            chunks: project.videoChunks(.seconds(Rational(4))), audioBlocks: [], sampleRate: 48000)
        job.project = project
        job.mediaPins = ["a": MediaPin(FileStamp(size: 1, modified: 1, changed: 1, inode: 1, device: 1))]
        job.videoKeys = ChunkKeys.keys(of: project, work: job.chunks, container: .mp4, pins: job.mediaPins)
        return job
    }

    static func spans(_ job: JobSubmission) -> [String] {
        job.chunks.map { "\($0.index):\($0.start)-\($0.end)" }
    }

    @Test func theOneChunkTheCacheLacksIsSplitForTheSlotsAndTheOthersKeepTheirKeys() throws {
        let whole = try Self.submission()
        #expect(Self.spans(whole) == ["0:0-120", "1:120-240", "2:240-360"])
        let cached = Set([whole.videoKeys[0], whole.videoKeys[2]])

        var two = whole
        two.spreadUncached(over: 2, cached: cached)
        #expect(Self.spans(two) == ["0:0-120", "1:120-180", "2:180-240", "3:240-360"])
        // Keyed by what they render, not by their place: the cached chunks are found again.
        #expect(two.videoKeys.count == 4 && two.videoKeys[0] == whole.videoKeys[0])
        #expect(two.videoKeys[3] == whole.videoKeys[2])
        #expect(!cached.contains(two.videoKeys[1]) && !cached.contains(two.videoKeys[2]))
        #expect(Set(two.videoKeys).count == 4)

        // Four slots: four parts, each one GOP.
        var four = whole
        four.spreadUncached(over: 4, cached: cached)
        #expect(Self.spans(four) == ["0:0-120", "1:120-150", "2:150-180", "3:180-210", "4:210-240", "5:240-360"])

        // Submitted again once the parts are cached: split the same way, every key found.
        var again = whole
        again.spreadUncached(over: 2, cached: cached.union(two.videoKeys))
        #expect(Self.spans(again) == Self.spans(two) && again.videoKeys == two.videoKeys)
    }

    @Test func nothingIsPlannedAgainWhenTheSlotsAreBusyOrNothingIsMissing() throws {
        let whole = try Self.submission()
        var allCached = whole
        allCached.spreadUncached(over: 2, cached: Set(whole.videoKeys))
        #expect(Self.spans(allCached) == Self.spans(whole) && allCached.videoKeys == whole.videoKeys)
        var asManyAsSlots = whole
        asManyAsSlots.spreadUncached(over: 2, cached: [whole.videoKeys[0]])
        #expect(Self.spans(asManyAsSlots) == Self.spans(whole))
        // A chunk of one GOP has no smaller part on the GOP.
        var gop = whole
        gop.chunks = gop.project!.videoChunks(.frames(30))
        gop.videoKeys = ChunkKeys.keys(of: gop.project!, work: gop.chunks, container: .mp4, pins: gop.mediaPins)
        let before = Self.spans(gop)
        gop.spreadUncached(over: 2, cached: Set(gop.videoKeys.dropFirst()))
        #expect(Self.spans(gop) == before)
    }
}
