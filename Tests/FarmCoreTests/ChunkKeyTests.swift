import FarmCore
import Foundation
import TestSupport
import Testing

/// A chunk's key (`ChunkKeys`) changes exactly when its bytes can: an edit changes the keys of
/// the chunks it touches and no other.
@Suite struct ChunkKeyTests {
    /// A 12-second timeline: clip a throughout, clip b at 2–3 s on a second track, a title at
    /// 6–8 s on a third; a sound track with music over all of it.
    static func project(
        b: String = #""at": "2""#, title: String = "Chapter one", crf: Int = 20,
        aDuration: String = "12", musicVolume: String = "1"
    ) throws -> Project {
        let json = """
            {"output": {"width": 320, "height": 180, "fps": 30},
             "export": {"video": {"codec": "h264", "crf": \(crf), "gop": 30}},
             "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"}},
             "tracks": [
               {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "\(aDuration)"}]},
               {"kind": "video", "items": [{"asset": "b", \(b), "duration": "1"}]},
               {"kind": "video", "items": [{"title": {"text": "\(title)"}, "at": "6", "duration": "2"}]},
               {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "\(aDuration)",
                                            "volume": \(musicVolume)}]}]}
            """
        let (project, problems) = parseProjectText(json)
        return try #require(project, "\(problems)")
    }

    static let pins: [String: MediaPin] = [
        "a": MediaPin(FileStamp(size: 1, modified: 1, changed: 1, inode: 1, device: 1)),
        "b": MediaPin(FileStamp(size: 2, modified: 2, changed: 2, inode: 2, device: 1)),
        "music": MediaPin(FileStamp(size: 3, modified: 3, changed: 3, inode: 3, device: 1)),
    ]

    static func videoKeys(
        _ project: Project, pins: [String: MediaPin] = pins, renderer: Int = ChunkKeys.rendererVersion
    )
        -> [String]
    {
        ChunkKeys.keys(
            of: project, work: project.videoChunks(.seconds(Rational(1))), container: .mov,
            pins: pins, rendererVersion: renderer)
    }

    static func audioKeys(_ project: Project) -> [String] {
        ChunkKeys.keys(of: project, work: project.audioBlocks(), container: .mov, pins: pins)
    }

    /// The indices where two lists of keys differ.
    static func changed(_ a: [String], _ b: [String]) -> [Int] {
        (0..<max(a.count, b.count)).filter { $0 >= a.count || $0 >= b.count || a[$0] != b[$0] }
    }

    @Test func theKeyCoversWhatItSaysAndNothingElse() throws {
        let project = try Self.project()
        let chunks = project.videoChunks(.seconds(Rational(1)))
        let material = try #require(
            ChunkKeys.materials(of: project, work: [chunks[6]], container: .mov, pins: Self.pins).first)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(material)) as? [String: Any])
        // Any field added to the key must be added here, and to the list in ChunkKeys.swift.
        #expect(
            Set(json.keys)
                == [
                    "renderer", "kind", "start", "end", "endsTimeline", "output", "export", "container", "tracks",
                    "media",
                ])
        #expect(material.renderer == ChunkKeys.rendererVersion)
        #expect(material.start == 180 && material.end == 210)
        // Second 6 reads clip a and the title; clip b (2–3 s) is not in it.
        #expect(material.trackIndices == [0, 2])
        #expect(material.media.keys.sorted() == ["a"])
        #expect(material.media["a"]?.pin == Self.pins["a"])
        // Times are the chunk's own: the title starts where the chunk does; clip a, which
        // plays throughout, started 6 s before it and is cut off where the chunk ends.
        #expect(material.tracks[1].items.map(\.at) == [Rational(0)])
        #expect(material.tracks[0].items.map(\.at) == [Rational(-6)])
        #expect(material.tracks[0].items.map(\.duration) == [Rational(7)])
        #expect(material.tracks[0].items.map(\.sourceStart) == [Rational(0)])
    }

    /// `ChunkKeys.keys` encodes what chunks share once (`ChunkKeyWriter`); each key is still
    /// the key its material has alone.
    @Test func keysMadeTogetherAreKeysMadeOneByOne() throws {
        let project = try Self.project()
        func check<Span: WorkSpan>(_ spans: [Span]) {
            let together = ChunkKeys.keys(of: project, work: spans, container: .mov, pins: Self.pins)
            let alone = ChunkKeys.materials(of: project, work: spans, container: .mov, pins: Self.pins)
                .map(ChunkKeys.key)
            #expect(together == alone && Set(together).count == spans.count, "\(Span.kind)")
        }
        check(project.videoChunks(.frames(7)))
        check(project.audioBlocks())
    }

    /// Every field the key covers changes it, whichever part of the key it is hashed in; the
    /// places kept for `farm diff` do not.
    @Test func everyFieldTheKeyCoversChangesIt() throws {
        let project = try Self.project()
        let chunks = project.videoChunks(.seconds(Rational(1)))
        let material = try #require(
            ChunkKeys.materials(of: project, work: [chunks[6]], container: .mov, pins: Self.pins).first)
        let key = ChunkKeys.key(material)
        func changed(_ change: (inout ChunkMaterial) -> Void) -> Bool {
            var edited = material
            change(&edited)
            return ChunkKeys.key(edited) != key
        }
        let edits: [(String, (inout ChunkMaterial) -> Void)] = [
            ("renderer", { $0.renderer += 1 }),
            ("kind", { $0.kind = .audio }),
            ("start", { $0.start += 1 }),
            ("end", { $0.end += 1 }),
            ("endsTimeline", { $0.endsTimeline.toggle() }),
            ("output", { $0.output.width += 2 }),
            ("export", { $0.export.video.crf = 30 }),
            ("container", { $0.container = .mp4 }),
            ("track kind", { $0.tracks[0].kind = .audio }),
            ("track opacity", { $0.tracks[0].opacity = 0.5 }),
            ("track hidden", { $0.tracks[0].hidden.toggle() }),
            ("track transform", { $0.tracks[0].transform.rotation = .constant(90) }),
            (
                "an item fewer",
                {
                    $0.tracks[0].items.removeAll()
                    $0.tracks[0].itemIndices.removeAll()
                }
            ),
            ("item at", { $0.tracks[0].items[0].at = Rational(-5) }),
            ("item duration", { $0.tracks[0].items[0].duration = Rational(8) }),
            ("item source duration", { $0.tracks[0].items[0].sourceDuration = Rational(8) }),
            ("item source start", { $0.tracks[0].items[0].sourceStart = Rational(1) }),
            ("item opacity", { $0.tracks[0].items[0].opacity = .constant(0.5) }),
            ("item muted", { $0.tracks[0].items[0].muted.toggle() }),
            ("item transform", { $0.tracks[1].items[0].transform.rotation = .constant(45) }),
            (
                "a track fewer",
                {
                    $0.tracks.removeLast()
                    $0.trackIndices.removeLast()
                }
            ),
            ("media path", { $0.media["a"]?.path = "a2.mp4" }),
            ("media pin", { $0.media["a"]?.pin = Self.pins["b"] }),
            ("media added", { $0.media["b"] = $0.media["a"] }),
        ]
        for (name, edit) in edits {
            #expect(changed(edit), "\(name)")
        }
        #expect(!changed { $0.trackIndices = [5, 9] })
        #expect(!changed { $0.tracks[0].itemIndices = [3] })
    }

    @Test func anEditChangesOnlyTheChunksItTouches() throws {
        let before = Self.videoKeys(try Self.project())
        #expect(before.count == 12 && Set(before).count == 12)
        #expect(Self.changed(before, Self.videoKeys(try Self.project(title: "Chapter 1"))) == [6, 7])
        // Clip b moved from 2–3 s to 9–10 s: the chunks it left and the ones it reached.
        #expect(Self.changed(before, Self.videoKeys(try Self.project(b: #""at": "9""#))) == [2, 9])
        #expect(Self.videoKeys(try Self.project()) == before, "the same project gives the same keys")
    }

    /// A clip's head moved (a roll edit: `at` and the source start back by the same second)
    /// shows the same media after it, but the renderer times samples and transforms from the
    /// item's start: every chunk it plays in is rendered again, never joined from the cache.
    @Test func aClipsHeadMovedChangesEveryChunkItPlaysIn() throws {
        func keys(_ item: String) throws -> [String] {
            let json = """
                {"output": {"width": 320, "height": 180, "fps": 30}, "export": {"video": {"gop": 30}},
                 "assets": {"b": {"path": "b.mp4"}},
                 "tracks": [{"kind": "video", "items": [\(item)]}]}
                """
            let (project, problems) = parseProjectText(json)
            return Self.videoKeys(try #require(project, "\(problems)"))
        }
        // Media 1–3 s at 2–4 s, against media 0–3 s at 1–4 s: the same pictures from 2 s on.
        let before = try keys(#"{"asset": "b", "at": "2", "duration": "2", "source": {"start": "1"}}"#)
        let rolled = try keys(#"{"asset": "b", "at": "1", "duration": "3", "source": {"start": "0"}}"#)
        #expect(Self.changed(before, rolled) == [1, 2, 3])
    }

    /// A dissolve from a title (no sound) into a clip shapes the clip's sound: its length is in
    /// the audio blocks' keys even though the title is not.
    @Test func aTransitionCountsWhenOnlyOneOfItsItemsIsRead() throws {
        func project(dissolve: String) throws -> Project {
            let json = """
                {"output": {"width": 320, "height": 180, "fps": 30},
                 "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [
                     {"title": {"text": "Opening"}, "at": "0", "duration": "12"},
                     {"asset": "a", "at": "12", "duration": "18"}],
                   "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "\(dissolve)"}]}]}
                """
            let (project, problems) = parseProjectText(json)
            return try #require(project, "\(problems)")
        }
        let one = try project(dissolve: "1")
        let two = try project(dissolve: "2")
        let keys = { (project: Project) in
            ChunkKeys.keys(of: project, work: project.audioBlocks(), container: .mov, pins: Self.pins)
        }
        // The block around the cut at 12 s, and the next, which reads the clip the dissolve
        // touches (a key cannot tell where a transition's effect ends): never the first.
        #expect(Self.changed(keys(one), keys(two)) == [1, 2])
    }

    @Test func aLongerTimelineKeepsEveryEarlierChunk() throws {
        let before = Self.videoKeys(try Self.project())
        let after = Self.videoKeys(try Self.project(aDuration: "14"))
        #expect(after.count == 14)
        #expect(Self.changed(before, after) == [12, 13])
    }

    @Test func replacedMediaAnExportSettingAndTheRendererChangeTheirChunks() throws {
        let project = try Self.project()
        let before = Self.videoKeys(project)
        var replaced = Self.pins
        replaced["b"] = MediaPin(FileStamp(size: 2, modified: 99, changed: 99, inode: 2, device: 1))
        #expect(Self.changed(before, Self.videoKeys(project, pins: replaced)) == [2], "only the chunk showing b")
        #expect(Self.changed(before, Self.videoKeys(try Self.project(crf: 21))) == Array(0..<12))
        #expect(Self.changed(before, Self.videoKeys(project, renderer: ChunkKeys.rendererVersion + 1)) == Array(0..<12))
    }

    /// Stills are made from the chunks afterwards: asking for them changes no chunk.
    @Test func aPosterAndThumbnailsChangeNoChunk() throws {
        var project = try Self.project()
        let before = Self.videoKeys(project)
        project.export.poster = PosterSettings(time: Rational(3), width: 320, format: .png)
        project.export.thumbnails = ThumbnailSettings(every: Rational(1, 2))
        #expect(Self.videoKeys(project) == before)
    }

    @Test func audioBlocksFollowTheSoundTheyMix() throws {
        let before = Self.audioKeys(try Self.project(aDuration: "30"))
        #expect(before.count == 3, "10-second blocks")
        // The title and clip b carry no sound a block mixes (b is a video item; its sound would
        // count): the title's edit changes no block.
        #expect(Self.changed(before, Self.audioKeys(try Self.project(title: "x", aDuration: "30"))) == [])
        #expect(
            Self.changed(before, Self.audioKeys(try Self.project(aDuration: "30", musicVolume: "0.5"))) == [0, 1, 2])
        // Clip b (its own sound) moved from 2 s to 25 s: the first block and the last.
        #expect(Self.changed(before, Self.audioKeys(try Self.project(b: #""at": "25""#, aDuration: "30"))) == [0, 2])
    }
}
