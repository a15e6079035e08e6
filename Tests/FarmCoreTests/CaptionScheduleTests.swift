import FarmCore
import Foundation
import TestSupport
import Testing

/// The rule that says which frames show a cue: a frame's start time, mapped by the item, inside
/// the cue's [start, end).
@Suite struct CaptionScheduleTests {
    static let cues = [
        CaptionCue(start: Rational(5), end: Rational(6), text: "a", line: 1),
        CaptionCue(start: Rational(11, 2), end: Rational(7), text: "b", line: 2),
        CaptionCue(start: Rational(9), end: Rational(9), text: "never", line: 3),
    ]

    static func item(_ extra: String) throws -> Item {
        let (project, problems) = parseProjectText(
            """
            {"assets": {"s": {"path": "s.srt"}},
             "tracks": [{"kind": "video", "items": [{"asset": "s", "at": 10, "duration": 10\(extra)}]}]}
            """)
        guard let project else { throw TestError.failed("\(problems)") }
        return project.tracks[0].items[0]
    }

    /// The docs' example: speed 2, source from 4 s: cue 5..6 s is shown from 10.5 s to 11 s.
    @Test func speedMovesCuesToTheTimeline() throws {
        let schedule = CaptionSchedule(
            item: try Self.item(#", "source": {"start": "4", "duration": "20"}"#), cues: Self.cues, fps: Rational(30))
        let runs = schedule.runs()
        #expect(runs == [.init(cue: 0, frames: 315..<330), .init(cue: 1, frames: 323..<345)])
        #expect(schedule.cues(onFrame: 314) == [])
        #expect(schedule.cues(onFrame: 325) == [0, 1])
    }

    /// A time map that plays 5..6 s, then back: the cue shows twice.
    @Test func aTimeMapThatTurnsBackShowsACueAgain() throws {
        let item = try Self.item(#", "timeMap": [["0", "5"], ["1", "6"], ["2", "5"]]"#)
        let runs = CaptionSchedule(item: item, cues: [Self.cues[0]], fps: Rational(10)).runs()
        // Frames 100..109 show 5.0..5.9, frame 110 shows 6.0 (the end: not shown), 111..120
        // come back down through 5.9..5.0, and from 2 s on the map holds 5.
        #expect(runs == [.init(cue: 0, frames: 100..<110), .init(cue: 0, frames: 111..<200)])
    }

    @Test func softTracksClipToTheRenderedFrames() throws {
        let (project, problems) = parseProjectText(
            """
            {"output": {"fps": "30"}, "assets": {"s": {"path": "s.srt"}},
             "tracks": [{"kind": "video", "items": [{"asset": "s", "at": 0, "duration": 10,
               "captions": {"burnIn": false, "soft": true, "language": "fra"}}]}]}
            """)
        let parsed = try #require(project, "\(problems)")
        let tracks = parsed.subtitleTracks(captions: ["s": Self.cues], frames: 160..<200)
        #expect(
            tracks == [
                SubtitleTrack(
                    language: "fra", cues: [.init(text: "a", frames: 160..<180), .init(text: "b", frames: 165..<200)])
            ])
    }
}
