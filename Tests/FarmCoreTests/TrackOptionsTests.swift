import FarmCore
import Foundation
import TestSupport
import Testing

/// Track-level options: a sequence packs its items, an offset moves the track, muted and
/// hidden reach every item, and mistakes are named with their paths.
@Suite struct TrackOptionsTests {
    func parse(_ tracks: String) -> (Project?, [String]) {
        let json = """
            {"assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}}, "tracks": [\(tracks)]}
            """
        return parseProjectText(json)
    }

    @Test func aSequencePacksItsItemsAndAnOffsetMovesThemAll() throws {
        let (project, problems) = parse(
            """
            {"kind": "video", "mode": "sequence", "offset": "1.5", "opacity": 0.5, "hidden": true, "muted": true,
             "items": [{"asset": "a", "duration": "2"}, {"asset": "b", "duration": "0.5"},
               {"asset": "a", "duration": "3"}]}
            """)
        #expect(problems.isEmpty, "\(problems)")
        let track = try #require(project?.tracks.first)
        #expect(track.items.map(\.at) == [Rational(3, 2), Rational(7, 2), Rational(4)])
        #expect(track.items.allSatisfy { $0.muted })
        #expect(track.opacity == 0.5)
        #expect(track.hidden)
        #expect(project?.duration == Rational(7))
    }

    @Test func aFreeTrackKeepsItsTimesAndItsDefaults() throws {
        let (project, _) = parse(
            #"{"kind": "audio", "offset": "2", "items": [{"asset": "a", "at": "1", "duration": "1"}]}"#)
        let track = try #require(project?.tracks.first)
        #expect(track.items.map(\.at) == [Rational(3)])
        #expect(track.opacity == 1 && !track.hidden && !track.items[0].muted)
    }

    @Test func mistakesAreNamedWithTheirPaths() {
        let (_, problems) = parse(
            """
            {"kind": "video", "mode": "sequence", "offset": "-1", "opacity": 2,
             "items": [{"asset": "a", "at": "0", "duration": "1"}]},
            {"kind": "video", "mode": "stack", "items": []}
            """)
        #expect(problems.contains("tracks[0].offset: must be >= 0 (got -1)"))
        #expect(problems.contains("tracks[0].opacity: must be from 0 to 1 (got 2)"))
        #expect(
            problems.contains(
                #"tracks[0].items[0].at: items of a sequence track follow one another; remove "at""#))
        #expect(problems.contains(#"tracks[1].mode: "stack" is not one of free, sequence"#))
    }
}
