import FarmCore
import Foundation
import TestSupport
import Testing

/// Timelines as the `opentimelineio` package and the editors write them: non-finite numbers in
/// metadata, float rates and float frame counts, cross-fades over media without handles, and
/// media URLs relinked by their URL prefix.
@Suite struct OTIOInterchangeTests {
    /// Runs `script` with the package's Python, `folder` as its argument; its standard output.
    static func python(_ script: String, in folder: URL) throws -> String {
        let file = folder.appendingPathComponent("make.py")
        try Data(script.utf8).write(to: file)
        let result = try run(OTIOOracleTests.python, [file.path, folder.path])
        guard result.status == 0 else { throw TestError.failed("python: \(result.stderr)") }
        return result.stdout
    }

    @Test func metadataWithInfinitiesAndNaNImports() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x64:rate=24:duration=2")
            _ = try Self.python(
                #"""
                import sys
                import opentimelineio as otio
                from opentimelineio.opentime import RationalTime as T, TimeRange as R
                folder = sys.argv[1]
                clip = otio.schema.Clip(name="A", source_range=R(T(0, 24), T(24, 24)),
                    media_reference=otio.schema.ExternalReference(target_url="file://" + folder + "/a.mp4"))
                clip.metadata["meter"] = {"peak": float("inf"), "floor": float("-inf"), "gain": float("nan"),
                                          "count": 2**63 - 1}
                track = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
                track.append(clip)
                timeline = otio.schema.Timeline(name="cut")
                timeline.tracks.append(track)
                otio.adapters.write_to_file(timeline, folder + "/cut.otio")
                """#, in: dir)
            let text = try String(contentsOf: dir.appendingPathComponent("cut.otio"), encoding: .utf8)
            #expect(text.contains("-Infinity") && text.contains("NaN"), "the package writes them")
            let imported = try runFarm(["import", "cut.otio", "-o", "cut.json"], in: dir)
            #expect(imported.status == 0, "\(imported.stderr)")
        }
    }

    /// 180 clips at float NTSC and integer rates, placed by `RationalTime.from_seconds` (so
    /// frame counts such as 41.95804195804195), with gaps and dissolves: the import validates
    /// as it is, without a word, and puts each clip where the package does.
    @Test func aFloatRateTimelineOf180ClipsValidatesAsImported() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x64:rate=24000/1001:duration=24")
            let placements = try Self.python(
                #"""
                import json, sys
                import opentimelineio as otio
                from opentimelineio.opentime import RationalTime as T, TimeRange as R
                folder = sys.argv[1]
                rates = [24000 / 1001, 30000 / 1001, 60000 / 1001, 24.0, 25.0]
                track = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
                for i in range(180):
                    rate = rates[i % len(rates)]
                    if i % 10 == 9 and i % 7 != 0:
                        track.append(otio.schema.Transition(in_offset=T.from_seconds(0.2, rate),
                            out_offset=T.from_seconds(0.2, rate), transition_type="SMPTE_Dissolve"))
                    ref = otio.schema.ExternalReference(target_url="file://" + folder + "/a.mp4",
                        available_range=R(T(0, rate), T.from_seconds(23, rate)))
                    track.append(otio.schema.Clip(name="c%d" % i, media_reference=ref,
                        source_range=R(T.from_seconds(1 + 0.1 * i, rate), T.from_seconds(0.5 + 0.1 * (i % 13), rate))))
                    if i % 7 == 6:
                        track.append(otio.schema.Gap(source_range=R(T(0, rate), T.from_seconds(0.1 * 3, rate))))
                timeline = otio.schema.Timeline(name="floats", global_start_time=T(0, rates[0]))
                timeline.tracks.append(track)
                otio.adapters.write_to_file(timeline, folder + "/cut.otio")
                print(json.dumps([c.range_in_parent().start_time.to_seconds() for c in timeline.find_clips()]))
                """#, in: dir)
            let imported = try runFarm(["import", "cut.otio", "-o", "cut.json"], in: dir)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.isEmpty, "no note, no warning: \(imported.stderr)")
            let validated = try runFarm(["validate", "cut.json"], in: dir)
            #expect(validated.status == 0, "\(validated.stderr)")
            #expect(validated.stderr.isEmpty, "no warning: \(validated.stderr)")
            let starts = try JSONSerialization.jsonObject(with: Data(placements.utf8)) as! [Double]
            let project = try ProjectParser(mediaRoot: dir).parse(
                Array(try Data(contentsOf: dir.appendingPathComponent("cut.json"))), file: "cut.json")
            let items = project.tracks[0].items
            #expect(items.count == 180 && starts.count == 180)
            for (item, start) in zip(items, starts) {
                #expect(abs(item.at.seconds - start) < 1e-6, "\(item.at) against the package's \(start)")
            }
        }
    }

    /// DaVinci Resolve's cross-fade over clips cut at their media's ends: imported with a note
    /// per short side, rendered with the edge frames held, as the same edit written by hand.
    @Test func aCrossFadeWithoutHandlesRendersHoldingTheEdges() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=64x64:rate=24:duration=2")
            try TestMedia.make("b.mp4", in: dir, video: "mandelbrot=size=64x64:rate=24", extra: ["-t", "2"])
            let fade = OTIODocument.transition(in: 12, out: 12).replacingOccurrences(
                of: #""name": """#, with: #""name": "Cross Dissolve""#)
            let otio = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mp4", source: (0, 48), available: (0, 48)), fade,
                            OTIODocument.clip("B", "b.mp4", source: (0, 48), available: (0, 48)),
                        ])
                ], rate: "24")
            try Data(otio.utf8).write(to: dir.appendingPathComponent("cut.otio"))
            let imported = try runFarm(
                ["render", "cut.otio", "-o", "otio.mkv", "--local", "--canvas", "64x64@24"], in: dir)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(
                imported.stderr.contains(
                    #"note: tracks.children[0].children[1]: Transition "Cross Dissolve": Clip "B" has 0.500 s less "#
                        + "media before its start"), "\(imported.stderr)")
            let byHand = """
                {"output": {"width": 64, "height": 64, "fps": "24"},
                 "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
                 "tracks": [{"kind": "video", "items": [
                   {"asset": "a", "at": "0", "duration": "2", "muted": true},
                   {"asset": "b", "at": "2", "duration": "2", "muted": true}],
                   "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "1", "handles": "hold"}]}]}
                """
            try Data(byHand.utf8).write(to: dir.appendingPathComponent("hand.json"))
            let hand = try runFarm(["render", "hand.json", "-o", "hand.mkv", "--local"], in: dir)
            #expect(hand.status == 0, "\(hand.stderr)")
            // On a farm, each worker holds the frames the same way.
            let farm = try runFarm(
                ["render", "cut.otio", "-o", "farm.mkv", "--canvas", "64x64@24", "--data", "farm"], in: dir)
            #expect(farm.status == 0, "\(farm.stderr)")
            let frames = try frameHashes(dir.appendingPathComponent("otio.mkv"))
            #expect(frames.count == 96)
            #expect(frames == (try frameHashes(dir.appendingPathComponent("hand.mkv"))))
            #expect(frames == (try frameHashes(dir.appendingPathComponent("farm.mkv"))))
        }
    }

    @Test func relinkTakesTheURLPrefixAsTheDocumentWritesIt() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a b.mp4", in: dir, video: "testsrc2=size=64x64:rate=24:duration=1")
            let clip = OTIODocument.clip("A", "file:///Volumes/My%20Media/a%20b.mp4", source: (0, 24))
            let otio = OTIODocument.timeline([OTIODocument.track("Video", "V1", [clip])], rate: "24")
            try Data(otio.utf8).write(to: dir.appendingPathComponent("cut.otio"))
            let validated = try runFarm(
                ["validate", "cut.otio", "--relink", "file:///Volumes/My%20Media/=\(dir.path)"], in: dir)
            #expect(validated.status == 0, "\(validated.stderr)")
        }
    }
}
