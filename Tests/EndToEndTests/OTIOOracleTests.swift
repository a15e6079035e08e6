import FarmCore
import Foundation
import TestSupport
import Testing

/// `farm import` against the `opentimelineio` package itself (PyPI, in the virtual environment
/// `ops/setup.sh` makes): the package builds and writes the timeline and computes where each clip
/// sits and what media it plays; the farm's project must agree. Then an imported timeline renders
/// the same frames as the same edit written in the farm's own format.
@Suite struct OTIOOracleTests {
    /// The package's Python (`.build/otio-venv`).
    static var python: String { TestPython.path }

    /// Builds a timeline with the package (two video tracks with gaps, a dissolve, a compound
    /// clip: a nested stack with its own source range, media whose available range starts at
    /// 01:00:00:00, an audio track), writes it to cut.otio, and prints each clip's placement as
    /// the package computes it: [file, timeline start, duration, media start] in seconds.
    static let oracle = #"""
        import json, sys
        import opentimelineio as otio
        from opentimelineio.opentime import RationalTime as T, TimeRange as R
        folder, rate = sys.argv[1], 24000 / 1001
        def clip(name, file, start, frames, tc=86400):
            ref = otio.schema.ExternalReference(target_url="file://" + folder + "/" + file,
                                                available_range=R(T(tc, rate), T(2400, rate)))
            return otio.schema.Clip(name=name, media_reference=ref,
                                    source_range=R(T(tc + start, rate), T(frames, rate)))
        v1 = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
        v1.extend([clip("a1", "a.mp4", 0, 48), otio.schema.Transition(in_offset=T(6, rate), out_offset=T(6, rate),
                   transition_type=otio.schema.TransitionTypes.SMPTE_Dissolve),
                   clip("b1", "b.mp4", 24, 36), otio.schema.Gap(source_range=R(T(0, rate), T(12, rate))),
                   clip("a2", "a.mp4", 120, 30)])
        inner = otio.schema.Track(name="inner", kind=otio.schema.TrackKind.Video)
        inner.extend([otio.schema.Gap(source_range=R(T(0, rate), T(24, rate))), clip("b2", "b.mp4", 60, 24)])
        compound = otio.schema.Stack(name="compound", source_range=R(T(12, rate), T(48, rate)))
        compound.append(inner)
        v2 = otio.schema.Track(name="V2", kind=otio.schema.TrackKind.Video)
        v2.extend([otio.schema.Gap(source_range=R(T(0, rate), T(30, rate))), clip("a3", "a.mp4", 200, 20), compound])
        a1 = otio.schema.Track(name="A1", kind=otio.schema.TrackKind.Audio)
        a1.extend([otio.schema.Gap(source_range=R(T(0, rate), T(10, rate))), clip("m", "a.mp4", 0, 100)])
        timeline = otio.schema.Timeline(name="cut", global_start_time=T(86400, rate))
        timeline.tracks.extend([v1, v2, a1])
        otio.adapters.write_to_file(timeline, folder + "/cut.otio")
        placements = []
        for c in timeline.find_clips():
            trimmed = c.trimmed_range()
            start = c.transformed_time(trimmed.start_time, timeline.tracks)
            # A compound's window can cut its clips: keep the part inside it.
            visible_start, duration = start, trimmed.duration
            parent = c.parent()
            if parent.parent() is not timeline.tracks:
                window = compound.trimmed_range_in_parent()
                end = min(start + duration, window.end_time_exclusive())
                visible_start = max(start, window.start_time)
                duration = end - visible_start
            media = trimmed.start_time - c.available_range().start_time + (visible_start - start)
            placements.append([c.media_reference.target_url.split("/")[-1], visible_start.to_seconds(),
                               duration.to_seconds(), media.to_seconds()])
        print(json.dumps(placements))
        """#

    @Test func thePackageAndTheFarmPlaceEveryClipAlike() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=160x90:rate=24000/1001:duration=12",
                audio: "sine=frequency=440:duration=12")
            try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=160x90:rate=24000/1001:duration=12")
            let script = dir.appendingPathComponent("oracle.py")
            try Data(Self.oracle.utf8).write(to: script)
            let oracle = try run(Self.python, [script.path, dir.path])
            #expect(oracle.status == 0, "\(oracle.stderr)")
            let imported = try runFarm([
                "import", dir.appendingPathComponent("cut.otio").path, "-o",
                dir.appendingPathComponent("cut.json").path,
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("tracks: 3 video, 1 audio; 6 clips, 4 gaps, 1 transitions"))

            // The package's placements, as exact rationals at the timeline's rate.
            let fps = Rational(24000, 1001)
            func frames(_ seconds: Double) -> Rational { Rational(Int64((seconds * 24000 / 1001).rounded())) / fps }
            let expected = try JSONSerialization.jsonObject(with: Data(oracle.stdout.utf8)) as! [[Any]]
            let wanted = expected.map { row in
                Placement(
                    file: row[0] as! String, at: frames(row[1] as! Double), duration: frames(row[2] as! Double),
                    mediaStart: frames(row[3] as! Double))
            }
            let project = try ProjectParser(mediaRoot: dir).parse(
                Array(try Data(contentsOf: dir.appendingPathComponent("cut.json"))), file: "cut.json")
            let placed = project.tracks.flatMap { track in
                track.items.map { item in
                    Placement(
                        file: URL(fileURLWithPath: project.assets[item.asset!]!.path).lastPathComponent,
                        at: item.at, duration: item.duration, mediaStart: item.sourceStart)
                }
            }
            #expect(wanted.count == 6)
            #expect(placed.sorted() == wanted.sorted())
            #expect(
                project.tracks[0].transitions.first.map { ($0.inOffset, $0.outOffset) } ?? (.zero, .zero)
                    == (Rational(6) / fps, Rational(6) / fps))
        }
    }

    struct Placement: Comparable, CustomStringConvertible {
        var file: String
        var at: Rational
        var duration: Rational
        var mediaStart: Rational
        static func < (a: Placement, b: Placement) -> Bool { (a.at, a.file, a.duration) < (b.at, b.file, b.duration) }
        var description: String { "\(file) at \(at) for \(duration) from \(mediaStart)" }
    }

    @Test func anImportedTimelineRendersTheFramesOfTheSameEditWrittenByHand() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=160x90:rate=24:duration=6")
            try TestMedia.make("b.mp4", in: dir, video: "mandelbrot=size=160x90:rate=24", extra: ["-t", "6"])
            // A dissolve of 12 frames on the cut at 2 s, and b at twice its speed.
            let otio = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mp4", source: (0, 48)), OTIODocument.transition(in: 6, out: 6),
                            OTIODocument.clip("B", "b.mp4", source: (24, 36), effects: [OTIODocument.warp("2")]),
                        ])
                ], rate: "24")
            try Data(otio.utf8).write(to: dir.appendingPathComponent("cut.otio"))
            let byHand = """
                {"output": {"width": 160, "height": 90, "fps": "24"},
                 "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
                 "tracks": [{"kind": "video", "items": [
                   {"asset": "a", "at": "0", "duration": "2", "muted": true},
                   {"asset": "b", "at": "2", "duration": "1.5", "source": {"start": "1", "duration": "3"},
                    "muted": true}],
                   "transitions": [{"between": [0, 1], "type": "dissolve", "inOffset": "0.25", "outOffset": "0.25"}]}]}
                """
            try Data(byHand.utf8).write(to: dir.appendingPathComponent("hand.json"))
            let imported = try runFarm([
                "render", dir.appendingPathComponent("cut.otio").path, "-o",
                dir.appendingPathComponent("otio.mkv").path,
                "--local", "--canvas", "160x90@24",
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
            let hand = try runFarm([
                "render", dir.appendingPathComponent("hand.json").path, "-o",
                dir.appendingPathComponent("hand.mkv").path,
                "--local",
            ])
            #expect(hand.status == 0, "\(hand.stderr)")
            // On a farm, the workers get the project made from the timeline, not the .otio.
            let farm = try runFarm(
                ["render", "cut.otio", "-o", "farm.mkv", "--canvas", "160x90@24", "--data", "farm"], in: dir)
            #expect(farm.status == 0, "\(farm.stderr)")
            let frames = try frameHashes(dir.appendingPathComponent("otio.mkv"))
            #expect(frames.count == 84)
            #expect(frames == (try frameHashes(dir.appendingPathComponent("hand.mkv"))))
            #expect(frames == (try frameHashes(dir.appendingPathComponent("farm.mkv"))))
        }
    }

    @Test func validateListsWhatIsNotCarriedOverAndStrictRefusesIt() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=160x90:rate=24:duration=3")
            let marked = OTIODocument.clip(
                "shot", "D:\\media\\a.mp4", source: (0, 24),
                markers: [OTIODocument.marker("fix")]
            )
            let file = dir.appendingPathComponent("cut.otio")
            try Data(OTIODocument.timeline([OTIODocument.track("Video", "V1", [marked])], rate: "24").utf8).write(
                to: file)
            let unrelinked = try runFarm(["validate", file.path])
            #expect(unrelinked.status == 2)
            #expect(unrelinked.stderr.contains(#"Clip "shot": media file not found"#))
            #expect(unrelinked.stderr.contains("--relink PREFIX=DIR"))
            let relink = ["--relink", "D:\\media=\(dir.path)"]
            let validated = try runFarm(["validate", file.path] + relink)
            #expect(validated.status == 0, "\(validated.stderr)")
            #expect(
                validated.stderr.contains(
                    #"note: tracks.children[0].children[0].markers[0]: Clip "shot": marker "fix" is not carried over"#))
            let output = dir.appendingPathComponent("cut.json")
            let strict = try runFarm(["import", file.path, "-o", output.path, "--strict"] + relink)
            #expect(strict.status == 2)
            #expect(!FileManager.default.fileExists(atPath: output.path), "nothing is written on an error")
            // Four problems, four lines, exit 2, nothing written.
            let broken = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("gone", "nowhere.mp4", source: (0, 24)),
                            #"{"OTIO_SCHEMA": "Wobble.1"}"#,
                            OTIODocument.clip("backwards", "a.mp4", source: (0, -24)),
                            OTIODocument.clip("late", "a.mp4", source: (0, 24)).replacingOccurrences(
                                of: #""rate": 24, "value": 0"#, with: #""rate": -1, "value": 0"#),
                        ])
                ], rate: "24")
            try Data(broken.utf8).write(to: file)
            let refused = try runFarm(["import", file.path, "-o", output.path])
            #expect(refused.status == 2)
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 4, "\(refused.stderr)")
            #expect(lines.allSatisfy { $0.hasPrefix("\(file.path): tracks.children[0].children[") })
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let bad = try runFarm(["import", file.path, "-o", output.path, "--canvas", "1920x1080"] + relink)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--canvas 1920x1080: expected WxH@FPS"))
        }
    }
}
