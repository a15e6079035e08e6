import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// OpenTimelineIO documents written here, one per mapping rule of docs/otio.md, imported and
/// read back through the farm's own project parser.
@Suite struct OTIOImportTests {
    /// A folder holding empty stand-ins for media (the importer checks that files exist; the
    /// media themselves are checked by the loader, in the end-to-end tests).
    static func withMedia<T>(_ names: [String] = ["a.mov", "b.mov", "music.wav"], _ body: (URL) throws -> T) throws
        -> T
    {
        try withTemporaryDirectory { dir in
            for name in names {
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data())
            }
            return try body(dir)
        }
    }

    static func load(_ otio: String, in dir: URL, options: OTIOImport.Options = OTIOImport.Options()) throws -> (
        project: Project, result: OTIOImport.Result
    ) {
        let file = dir.appendingPathComponent("cut.otio").path
        let result = try OTIOImport.read(Array(otio.utf8), file: file, options: options)
        let text = JSONWriter.pretty(result.project)
        let project = try ProjectParser(mediaRoot: dir).parse(Array(text.utf8), file: file)
        return (project, result)
    }

    static func problems(_ otio: String, in dir: URL) -> [String] {
        do {
            _ = try OTIOImport.read(Array(otio.utf8), file: "cut.otio", options: OTIOImport.Options())
            return []
        } catch let error as ProjectError {
            return error.diagnostics.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func clipsAndGapsFollowEachOtherAndMediaStartsAtItsAvailableRange() throws {
        try Self.withMedia { dir in
            // a.mov's timecode starts at 01:00:00:00 (86400 frames at 23.976): source_range
            // 86448 is 48 frames into the file.
            let a = OTIODocument.clip("A", "a.mov", source: (86448, 48), available: (86400, 2400), rate: "23.976")
            let b = OTIODocument.clip("B", "file://\(dir.path)/b.mov", source: (24, 36), rate: "23.976")
            let (project, result) = try Self.load(
                OTIODocument.timeline(
                    [OTIODocument.track("Video", "V1", [a, OTIODocument.gap(12, "23.976"), b])], rate: "23.976"),
                in: dir)
            let fps = Rational(24000, 1001)
            #expect(project.output.fps == fps)
            let items = project.tracks[0].items
            #expect(items.map(\.at) == [.zero, Rational(60) / fps])
            #expect(items.map(\.duration) == [Rational(48) / fps, Rational(36) / fps])
            #expect(items.map(\.sourceStart) == [Rational(48) / fps, Rational(24) / fps])
            #expect(items.allSatisfy { $0.muted }, "an OTIO video track carries no sound")
            #expect(result.summary[0] == "tracks: 1 video, 0 audio; 2 clips, 1 gaps, 0 transitions")
            #expect(result.notes.isEmpty)
        }
    }

    @Test func videoTracksStackBottomToTopAndAudioTracksPlaySound() throws {
        try Self.withMedia { dir in
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mov", source: (0, 48)),
                            // Disabled: left out, but its time still passes.
                            OTIODocument.clip("off", "b.mov", source: (0, 24)).replacingOccurrences(
                                of: #""enabled": true"#, with: #""enabled": false"#),
                            OTIODocument.clip("A", "a.mov", source: (48, 24)),
                        ]),
                    OTIODocument.track(
                        "Video", "V2", [OTIODocument.gap(24), OTIODocument.clip("B", "b.mov", source: (0, 24))]),
                    OTIODocument.track("Audio", "A1", [OTIODocument.clip("M", "music.wav", source: (0, 72))]),
                    OTIODocument.track(
                        "Video", "off", [OTIODocument.clip("B", "b.mov", source: (0, 24))], enabled: false),
                ], rate: "24")
            let (project, _) = try Self.load(document, in: dir)
            #expect(project.tracks.map(\.kind) == [.video, .video, .audio])
            #expect(project.tracks[0].items.map(\.at) == [.zero, Rational(3)])
            #expect(project.tracks[1].items[0].at == Rational(1))
            #expect(project.tracks[2].items[0].muted == false)
            #expect(project.tracks[2].items[0].duration == Rational(3))
        }
    }

    @Test func aTransitionJoinsItsNeighboursWithItsOffsets() throws {
        try Self.withMedia { dir in
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mov", source: (0, 48)), OTIODocument.transition(in: 6, out: 12),
                            OTIODocument.clip("B", "b.mov", source: (24, 48)),
                            OTIODocument.transition(in: 6, out: 6, type: "Custom_Transition"),
                        ])
                ], rate: "24")
            let (project, result) = try Self.load(document, in: dir)
            let transitions = project.tracks[0].transitions
            #expect(transitions.count == 2)
            #expect(transitions.first?.kind == .dissolve)
            #expect(transitions.first?.inOffset == Rational(1, 4))
            #expect(transitions.first?.outOffset == Rational(1, 2))
            #expect(transitions.first?.cut == Rational(2))
            // The one at the track's end fades B out.
            let last = try #require(transitions.last)
            #expect(last.outgoing == 1 && last.incoming == nil && last.cut == Rational(4))
            #expect(last.inOffset == Rational(1, 4) && last.outOffset == Rational(1, 4))
            #expect(
                result.notes.map(\.description) == [
                    #"tracks.children[0].children[3]: Transition: transition type "Custom_Transition" is "#
                        + "played as a dissolve"
                ])
        }
    }

    /// Fades as editors write them: a transition from the track's start or a gap into a clip,
    /// and from a clip into a gap, each reaching into the gap no further than it lasts.
    @Test func aTransitionBesideAGapFadesItsClip() throws {
        try Self.withMedia { dir in
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.transition(in: 0, out: 12), OTIODocument.clip("A", "a.mov", source: (0, 48)),
                            OTIODocument.transition(in: 12, out: 24), OTIODocument.gap(12),
                            OTIODocument.transition(in: 6, out: 12), OTIODocument.clip("B", "b.mov", source: (24, 48)),
                            OTIODocument.transition(in: 6, out: 6), OTIODocument.gap(6),
                            OTIODocument.transition(in: 0, out: 6),
                            OTIODocument.gap(6),
                        ])
                ], rate: "24")
            let (project, result) = try Self.load(document, in: dir)
            let fades = project.tracks[0].transitions.map {
                [
                    $0.outgoing.map { "\($0)" } ?? "-", $0.incoming.map { "\($0)" } ?? "-", "\($0.cut)",
                    "\($0.inOffset)", "\($0.outOffset)",
                ]
            }
            #expect(
                fades == [
                    ["-", "0", "0", "0", "1/2"],  // in from the track's start
                    ["0", "-", "2", "1/2", "1/2"],  // out into a 0.5 s gap: its 1 s cut to the gap
                    ["-", "1", "5/2", "0", "1/2"],  // in from that gap, which A's fade took whole
                    ["1", "-", "9/2", "1/4", "1/4"],  // out into the next gap
                ], "\(fades)")
            #expect(
                result.notes.map(\.description) == [
                    "tracks.children[0].children[8]: Transition has a clip on neither side; left out"
                ])
        }
    }

    /// Avid's Audio Pan on an audio track (otio-aaf-adapter: `metadata.AAF.Parameters.Pan`, 0
    /// left to 1 right, keys at fractions of the track's length) pans its items; on a video track
    /// it is noted.
    @Test func avidAudioPanPansTheItemsOfItsTrack() throws {
        try Self.withMedia { dir in
            let pan = #"""
                {"OTIO_SCHEMA": "Effect.1", "name": "Audio Pan", "effect_name": "",
                 "metadata": {"AAF": {"Parameters": {"AvidDefaultPan": 16384, "Pan": {"_aaf_keyframed_property": true,
                   "keyframe_interpolation": "Linear", "keyframe_values": [[0.5, 1.0], [0.0, 0.0], [1.0, 1.0]]}}}}}
                """#
            func withPan(_ track: String, _ kind: String) -> String {
                track.replacingOccurrences(
                    of: #""kind": "\#(kind)"}"#, with: #""kind": "\#(kind)", "effects": [\#(pan)]}"#)
            }
            let document = OTIODocument.timeline(
                [
                    withPan(
                        OTIODocument.track("Video", "V1", [OTIODocument.clip("A", "a.mov", source: (0, 96))]), "Video"),
                    withPan(
                        OTIODocument.track(
                            "Audio", "A1",
                            [
                                OTIODocument.clip("M1", "music.wav", source: (0, 48)),
                                OTIODocument.clip("M2", "music.wav", source: (48, 48)),
                            ]), "Audio"),
                ], rate: "24")
            let (project, result) = try Self.load(document, in: dir)
            // The track lasts 4 s: the pan runs from left at 0 to right at 2 s and stays there.
            let pans = project.tracks[1].items.map(\.pan)
            #expect(
                pans == [
                    .keys([Keyframe(time: .zero, value: -1), Keyframe(time: Rational(2), value: 1)]), .constant(1),
                ], "\(pans)")
            #expect(project.tracks[0].items[0].pan == nil)
            #expect(
                result.notes.map(\.description) == [
                    "tracks.children[0].effects[0]: Track \"V1\": effect \"Audio Pan\" is not rendered by the farm; "
                        + "ignored"
                ], "\(result.notes.map(\.description))")
        }
    }

    /// Kdenlive's fade effects (as otio-kdenlive-adapter writes them, lengths at 25 fps) fade
    /// their clip within it: pictures only from `fade_from_black` and `fade_to_black`, sound from
    /// `fadein` and `fadeout`; an edge a transition already joins keeps the transition.
    @Test func kdenliveFadeEffectsFadeTheirClip() throws {
        try Self.withMedia { dir in
            func fade(_ name: String, _ frames: Int) -> String {
                #"""
                {"OTIO_SCHEMA": "Effect.1", "name": "", "effect_name": "\#(name)",
                 "metadata": {"duration": \#(OTIODocument.time(frames, "25.0"))}}
                """#
            }
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip(
                                "A", "a.mov", source: (0, 48),
                                effects: [fade("fade_from_black", 9), fade("fadein", 5)]),
                            OTIODocument.transition(in: 6, out: 6),
                            OTIODocument.clip(
                                "B", "b.mov", source: (24, 48),
                                effects: [fade("fade_from_black", 25), fade("fade_to_black", 100)]),
                        ]),
                    OTIODocument.track(
                        "Audio", "A1",
                        [OTIODocument.clip("M", "music.wav", source: (0, 72), effects: [fade("fadeout", 50)])]),
                ], rate: "24")
            let (project, result) = try Self.load(document, in: dir)
            let fades = project.tracks.map { track in
                track.transitions.map {
                    [
                        $0.outgoing.map { "\($0)" } ?? "-", $0.incoming.map { "\($0)" } ?? "-", "\($0.inOffset)",
                        "\($0.outOffset)", "\($0.audio)",
                    ]
                }
            }
            #expect(
                fades == [
                    [
                        ["-", "0", "0", "9/25", "none"],  // A fades in from black, pictures only
                        ["0", "1", "1/4", "1/4", "equalPower"],  // the transition
                        ["1", "-", "7/4", "0", "none"],  // B's 4 s fade out cut to the 1.75 s the transition leaves
                    ],
                    [["0", "-", "2", "0", "equalPower"]],  // the music fades out over 2 s
                ], "\(fades)")
            #expect(
                result.notes.map(\.description) == [
                    "tracks.children[0].children[0].effects[1]: Clip \"A\": effect \"fadein\" fades sound alone, "
                        + "which the farm does on audio tracks only; ignored",
                    "tracks.children[0].children[2].effects[0]: Clip \"B\": effect \"fade_from_black\" meets a "
                        + "transition at that edge; the transition is kept",
                ], "\(result.notes.map(\.description))")
        }
    }

    @Test func nestedStacksFlattenWithTheirOwnWindow() throws {
        try Self.withMedia { dir in
            // A compound clip: a stack trimmed to its frames 24..<72, placed after 48 frames.
            let compound = OTIODocument.stack(
                [OTIODocument.track("Video", "inner", [OTIODocument.clip("B", "b.mov", source: (0, 96))])],
                source: (24, 48))
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mov", source: (0, 48)), compound,
                            OTIODocument.clip("A", "a.mov", source: (0, 24)),
                        ])
                ],
                rate: "24")
            let (project, _) = try Self.load(document, in: dir)
            #expect(project.tracks.count == 2)
            #expect(project.tracks[0].items.map(\.at) == [.zero, Rational(4)])
            let inner = project.tracks[1].items[0]
            #expect(inner.at == Rational(2))
            #expect(inner.duration == Rational(2))
            #expect(inner.sourceStart == Rational(1))
        }
    }

    @Test func aTracksSourceRangeTrimsIt() throws {
        try Self.withMedia { dir in
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mov", source: (0, 48)),
                            OTIODocument.clip("B", "b.mov", source: (0, 48)),
                        ],
                        source: (24, 48))
                ],
                rate: "24")
            let (project, _) = try Self.load(document, in: dir)
            let items = project.tracks[0].items
            #expect(items.map(\.at) == [.zero, Rational(1)])
            #expect(items.map(\.duration) == [Rational(1), Rational(1)])
            #expect(items.map(\.sourceStart) == [Rational(1), .zero])
        }
    }

    @Test func timeWarpsBecomeSpeedsAndFreezes() throws {
        try Self.withMedia { dir in
            let fast = OTIODocument.clip("fast", "a.mov", source: (24, 48), effects: [OTIODocument.warp("2")])
            let held = OTIODocument.clip("held", "b.mov", source: (36, 24), effects: [OTIODocument.freezeFrame()])
            let (project, result) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [fast, held])], rate: "24"), in: dir)
            let items = project.tracks[0].items
            #expect(items[0].duration == Rational(2))
            #expect(items[0].sourceDuration == Rational(4))
            #expect(items[0].speed == Rational(2))
            #expect(items[1].timeMap?.source(at: Rational(1, 2)) == Rational(3, 2))
            #expect(result.notes.isEmpty)
        }
    }

    /// OTIO writes doubles with all their digits (an Avid warp to 5 %: 0.049999999999999996);
    /// a literal too long to hold exactly is the double OTIO reads, as its simplest fraction.
    @Test func aTimeScalarWithAllADoublesDigitsIsTheDouble() throws {
        try Self.withMedia { dir in
            let slow = OTIODocument.clip(
                "slow", "a.mov", source: (0, 24), effects: [OTIODocument.warp("0.049999999999999996")])
            let odd = OTIODocument.clip(
                "odd", "b.mov", source: (0, 24), effects: [OTIODocument.warp("1.3333333333333332593")])
            let (project, result) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [slow, odd])], rate: "24"), in: dir)
            #expect(project.tracks[0].items.map(\.speed) == [Rational(1, 20), Rational(4, 3)])
            #expect(result.notes.isEmpty)
        }
    }

    /// OTIO accepts a clip of no length (an EDL event, a marker-like clip); it is dropped with a
    /// note, and the reel around it imports.
    @Test func aZeroLengthClipIsDroppedWithANote() throws {
        try Self.withMedia { dir in
            let empty = OTIODocument.clip("blink", "a.mov", source: (10, 0))
            let shown = OTIODocument.clip("shown", "b.mov", source: (0, 24))
            let (project, result) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [empty, shown])], rate: "24"), in: dir)
            #expect(project.tracks[0].items.map(\.duration) == [Rational(1)])
            #expect(result.notes.count == 1)
            #expect(
                result.notes.first?.description.contains("lasts no time (a zero-length clip); dropped") == true,
                "\(result.notes)")
        }
    }

    /// A timeline none of whose clips can be placed says why, track by track, naming the
    /// objects: a track window that shows none of its clips (as the cmx adapter writes for an EDL
    /// reel), and clips that all lack media.
    @Test func anImportOfNothingSaysWhyPerTrack() throws {
        try Self.withMedia { dir in
            let shown = OTIODocument.clip("A", "a.mov", source: (0, 24))
            let missing = OTIODocument.clip(
                "lost", reference: #"{"OTIO_SCHEMA": "MissingReference.1"}"#, source: (0, 24))
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track("Video", "reel 1", [shown, shown], source: (240, 24)),
                    OTIODocument.track("Audio", "A1", [missing, missing]),
                ], rate: "24")
            let problems = Self.problems(document, in: dir)
            #expect(
                problems == [
                    "tracks: nothing to render: no track of the timeline places a clip",
                    #"tracks.children[0]: track "reel 1" places none of its 2 clips: 2 lie outside 10.000 s to "#
                        + "11.000 s of the track, the part its source_range (or its parent's) shows; its children "
                        + "span 0 to 2.000 s",
                    #"tracks.children[1]: track "A1" places none of its 2 clips: 2 were left out, the first as "#
                        + #"tracks.children[1].children[0] says: Clip "lost" has no media (MissingReference); "#
                        + "left as a gap",
                ], "\(problems)")
        }
    }

    @Test func mediaURLsArePercentDecodedAndRelinked() throws {
        try Self.withMedia(["x y.mov"]) { dir in
            var options = OTIOImport.Options()
            options.relinks = [("D:/media", dir.path)]
            let windows = OTIODocument.clip("W", "file://localhost/D%3a/media/x%20y.mov", source: (0, 24))
            let (project, _) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [windows])], rate: "24"), in: dir,
                options: options)
            #expect(project.assets.values.map(\.path) == [dir.appendingPathComponent("x y.mov").path])
        }
        #expect(OTIOMediaPathProbe.path("file:///Volumes/A/shot%20010.mov") == "/Volumes/A/shot 010.mov")
        #expect(OTIOMediaPathProbe.path("media/a.mov") == "media/a.mov")
        #expect(OTIOMediaPathProbe.path("https://example.com/a.mov") == nil)
    }

    @Test func ratesGivenAsFloatsMeanTheNTSCRates() throws {
        try Self.withMedia { dir in
            for (rate, fps) in [
                ("23.976", Rational(24000, 1001)), ("23.98", Rational(24000, 1001)),
                ("29.97", Rational(30000, 1001)), ("59.94005994005994", Rational(60000, 1001)),
                ("25.0", Rational(25)),
            ] {
                let (project, _) = try Self.load(
                    OTIODocument.timeline(
                        [
                            OTIODocument.track(
                                "Video", "V1", [OTIODocument.clip("A", "a.mov", source: (0, 24), rate: rate)])
                        ], rate: rate),
                    in: dir)
                #expect(project.output.fps == fps, "rate \(rate)")
            }
        }
    }

    @Test func whatCannotBeCarriedOverIsNotedByName() throws {
        try Self.withMedia { dir in
            let marked = OTIODocument.clip(
                "shot_010", "a.mov", source: (0, 24), effects: [#"{"OTIO_SCHEMA": "Effect.1", "effect_name": "Blur"}"#],
                markers: [OTIODocument.marker("fix colour")])
            let offline = OTIODocument.clip(
                "offline", reference: #"{"OTIO_SCHEMA": "MissingReference.1"}"#, source: (0, 24))
            let bars = OTIODocument.clip(
                "bars",
                reference: #"{"OTIO_SCHEMA": "GeneratorReference.1", "generator_kind": "SMPTEBars", "parameters": {}}"#,
                source: (0, 24))
            let (project, result) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [marked, offline, bars])], rate: "24"), in: dir
            )
            #expect(project.tracks[0].items.count == 1)
            #expect(
                result.notes.map(\.description) == [
                    #"tracks.children[0].children[0].markers[0]: Clip "shot_010": marker "fix colour" is not "#
                        + "carried over (the farm has no markers)",
                    #"tracks.children[0].children[0].effects[0]: Clip "shot_010": effect "Blur" is not rendered "#
                        + "by the farm; ignored",
                    #"tracks.children[0].children[1]: Clip "offline" has no media (MissingReference); left as a gap"#,
                    #"tracks.children[0].children[2]: Clip "bars": generator "SMPTEBars" is not one the farm "#
                        + "draws; left as a gap",
                ])
        }
    }

    @Test func aSolidColourGeneratorIsASolidAndAnImageSequenceIsNumberedFrames() throws {
        try Self.withMedia(["f.1001.exr"]) { dir in
            let red = OTIODocument.clip(
                "red",
                reference: #"""
                    {"OTIO_SCHEMA": "GeneratorReference.1", "generator_kind": "SolidColor",
                     "parameters": {"color": {"r": 1.0, "g": 0.5, "b": 0}}}
                    """#, source: (0, 24))
            let frames = OTIODocument.clip(
                "frames",
                reference: #"""
                    {"OTIO_SCHEMA": "ImageSequenceReference.1", "target_url_base": "file://\#(dir.path)/",
                     "name_prefix": "f.", "name_suffix": ".exr", "start_frame": 1001, "frame_step": 1, "rate": 24,
                     "frame_zero_padding": 4, "missing_frame_policy": "error",
                     "available_range": {"OTIO_SCHEMA": "TimeRange.1",
                       "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 1001},
                       "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 48}}}
                    """#, source: (1013, 24))
            let (project, result) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [red, frames])], rate: "24"), in: dir)
            let items = project.tracks[0].items
            #expect(items[0].content == .solid(RGBColor(red: 255, green: 128, blue: 0)))
            let asset = try #require(items[1].asset.flatMap { project.assets[$0] })
            #expect(asset.path == dir.appendingPathComponent("f.%04d.exr").path)
            #expect(asset.sequence == Asset.ImageSequence(firstFrame: 1001, frameRate: Rational(24)))
            // 12 frames into the sequence's available range: its frame 1013.
            #expect(items[1].sourceStart == Rational(12, 24))
            #expect(result.notes.isEmpty, "\(result.notes)")
        }
    }

    @Test func anImageSequenceThatSkipsFramesOrLacksItsFirstIsRefusedByPath() throws {
        try Self.withMedia(["f.0001.exr"]) { dir in
            let sequence = { (step: Int, first: Int) in
                OTIODocument.clip(
                    "frames",
                    reference: #"""
                        {"OTIO_SCHEMA": "ImageSequenceReference.1", "target_url_base": "\#(dir.path)",
                         "name_prefix": "f.", "name_suffix": ".exr", "start_frame": \#(first),
                         "frame_step": \#(step), "rate": 24, "frame_zero_padding": 4}
                        """#, source: (0, 24))
            }
            let skipping = Self.problems(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [sequence(2, 1)])], rate: "24"), in: dir)
            #expect(
                skipping.contains {
                    $0.hasSuffix(
                        "DEFAULT_MEDIA.frame_step: Clip \"frames\": only every frame of a sequence can be read "
                            + "(frame_step 1, got 2)")
                }, "\(skipping)")
            let missing = Self.problems(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [sequence(1, 7)])], rate: "24"), in: dir)
            #expect(
                missing.contains { $0.contains("first frame not found: \(dir.path)/f.0007.exr") }, "\(missing)")
        }
    }

    /// Colour clips as each adapter writes them: Kdenlive's (MLT's "0xRRGGBBAA"), toucan's fill
    /// (fractions in an array), "#RRGGBB". An effect on a track, which the farm does not
    /// render, is noted as a clip's is.
    @Test func colourClipsInEveryAdaptersNotationAreSolidsAndTrackEffectsAreNoted() throws {
        try Self.withMedia { dir in
            let generators = [
                ("SolidColor", #""0x2a3158ff""#), ("toucan:Fill", "[1.0, 0.0, 0.5, 1.0]"), ("Color", ##""#80FF00""##),
            ]
            let clips = generators.enumerated().map { index, generator in
                OTIODocument.clip(
                    "colour \(index)",
                    reference: #"{"OTIO_SCHEMA": "GeneratorReference.1", "generator_kind": "\#(generator.0)", "#
                        + #""parameters": {"size": [1280, 720], "color": \#(generator.1)}}"#, source: (0, 24))
            }
            var track = OTIODocument.track("Video", "V1", clips)
            track.removeLast()
            track += #", "effects": [{"OTIO_SCHEMA": "Effect.1", "name": "", "effect_name": "Audio Pan"}]}"#
            let (project, result) = try Self.load(OTIODocument.timeline([track], rate: "24"), in: dir)
            #expect(
                project.tracks[0].items.map(\.content) == [
                    .solid(RGBColor(red: 0x2A, green: 0x31, blue: 0x58)),
                    .solid(RGBColor(red: 255, green: 0, blue: 128)), .solid(RGBColor(red: 0x80, green: 0xFF, blue: 0)),
                ])
            #expect(
                result.notes.map(\.description) == [
                    #"tracks.children[0].effects[0]: Track "V1": effect "Audio Pan" is not rendered by the farm; "#
                        + "ignored"
                ])
        }
    }

    @Test func clip1WithItsSingleMediaReferenceIsRead() throws {
        try Self.withMedia { dir in
            let old = #"""
                {"OTIO_SCHEMA": "Clip.1", "name": "A", "source_range": \#(OTIODocument.range(12, 24, "24")),
                 "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "a.mov"}}
                """#
            let (project, _) = try Self.load(
                OTIODocument.timeline([OTIODocument.track("Video", "V1", [old])], rate: "24"), in: dir)
            #expect(project.tracks[0].items[0].sourceStart == Rational(1, 2))
        }
    }

    @Test func everyProblemIsOneLineNamingTheObject() throws {
        try Self.withMedia { dir in
            let missing = OTIODocument.clip("gone", "nowhere.mov", source: (0, 24))
            let unknown = #"{"OTIO_SCHEMA": "Wobble.1", "name": "w"}"#
            let negative = OTIODocument.clip("backwards", "a.mov", source: (0, -24))
            let malformed = #"""
                {"OTIO_SCHEMA": "Clip.2", "name": "bad", "source_range": {"OTIO_SCHEMA": "TimeRange.1",
                  "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 0, "value": 1},
                  "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": "ten"}},
                 "media_references": {}, "active_media_reference_key": "DEFAULT_MEDIA"}
                """#
            let found = Self.problems(
                OTIODocument.timeline(
                    [OTIODocument.track("Video", "V1", [missing, unknown, negative, malformed])], rate: "24"), in: dir)
            #expect(found.count == 4, "\(found)")
            #expect(
                found.contains {
                    $0.hasPrefix(
                        "tracks.children[0].children[0].media_references.DEFAULT_MEDIA.target_url: "
                            + "Clip \"gone\": media file not found: "
                    )
                })
            #expect(found.contains("tracks.children[0].children[1]: unknown schema Wobble.1 in a track"))
            #expect(
                found.contains("tracks.children[0].children[2].source_range.duration: negative duration (-1.000 s)"))
            #expect(
                found.contains(
                    "tracks.children[0].children[3].source_range.start_time: RationalTime needs a rate above 0, got 0"))
        }
        #expect(
            Self.problems("{\"OTIO_SCHEMA\": \"Timeline.1\", ", in: URL(fileURLWithPath: "/")).first?.hasPrefix(
                "not JSON: line 1") == true)
    }
}

/// Reaches the media URL rules through the public import (a plain path needs no file).
enum OTIOMediaPathProbe {
    static func path(_ url: String) -> String? { OTIOImport.mediaPath(fromURL: url) }
}
