import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// OTIO counts time in doubles: rates such as 29.97002997002997 and values such as
/// 41.95804195804195 frames. An import of them is a project its own parser takes, as it is.
@Suite struct OTIOFloatTimeTests {
    static let rates = ["23.976023976023978", "29.97002997002997", "59.94005994005994", "24.0", "25.0"]

    static func time(_ seconds: Double, _ rate: String) -> String {
        #"{"OTIO_SCHEMA": "RationalTime.1", "rate": \#(rate), "value": \#(seconds * Double(rate)!)}"#
    }

    static func range(_ start: Double, _ duration: Double, _ rate: String) -> String {
        #"""
        {"OTIO_SCHEMA": "TimeRange.1", "start_time": \#(time(start, rate)),
         "duration": \#(time(duration, rate))}
        """#
    }

    /// 180 clips of a.mov at five float rates, lengths such as 0.1 × 7 s, a gap after every
    /// seventh and a dissolve before every tenth that follows a clip; and where OTIO's doubles put each clip.
    static func timeline() -> (document: String, starts: [Double]) {
        var children: [String] = []
        var starts: [Double] = []
        var cursor = 0.0
        for index in 0..<180 {
            let rate = rates[index % rates.count]
            let length = 0.5 + 0.1 * Double(index % 13)
            // After a clip, not a gap: a transition joins two clips.
            if index % 10 == 9 && index % 7 != 0 {
                children.append(
                    #"""
                    {"OTIO_SCHEMA": "Transition.1", "name": "", "transition_type": "SMPTE_Dissolve",
                     "in_offset": \#(time(0.2, rate)), "out_offset": \#(time(0.2, rate))}
                    """#)
            }
            children.append(
                #"""
                {"OTIO_SCHEMA": "Clip.1", "name": "c\#(index)",
                 "source_range": \#(range(1 + 0.1 * Double(index), length, rate)),
                 "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "a.mov",
                   "available_range": \#(range(0, 3600, rate))}}
                """#)
            starts.append(cursor)
            cursor += length
            if index % 7 == 6 {
                children.append(#"{"OTIO_SCHEMA": "Gap.1", "source_range": \#(range(0, 0.1 * 3, rate))}"#)
                cursor += 0.1 * 3
            }
        }
        let track = #"{"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [\#(children.joined(separator: ", "))]}"#
        let document = #"""
            {"OTIO_SCHEMA": "Timeline.1", "name": "floats", "global_start_time": \#(time(0, rates[0])),
             "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [\#(track)]}}
            """#
        return (document, starts)
    }

    @Test func aFloatTimelineImportsToTimesItsParserTakes() throws {
        try withTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("a.mov").path, contents: Data())
            let (document, starts) = Self.timeline()
            #expect(document.contains(#""value": 41.95804195804195"#), "a float's residue is in the document")
            let result = try OTIOImport.read(
                Array(document.utf8), file: dir.appendingPathComponent("cut.otio").path, options: .init())
            let text = JSONWriter.pretty(result.project)
            let (project, problems) = parseProjectText(text)
            #expect(problems == [])
            let track = try #require(project?.tracks[0])
            #expect(track.items.count == 180)
            #expect(track.transitions.count == 16)
            #expect(project?.output.fps == Rational(24000, 1001))
            for (index, item) in track.items.enumerated() {
                #expect(abs(item.at.seconds - starts[index]) < 1e-6, "item \(index) at \(item.at)")
                // Clips that follow each other meet exactly: no overlap, no sliver of a gap.
                if index > 0 && index % 7 != 0 {
                    #expect(item.at == track.items[index - 1].end, "item \(index)")
                }
            }
            // Whole frames stay exact: 1 s at 23.976 is 24000/1001 frames of 1001/24000 s.
            #expect(track.items[0].sourceStart == Rational(1))
        }
    }

    /// A float rate that means an NTSC rate is that rate; any other is a rate the project takes.
    @Test func floatRatesBecomeRatesTheParserTakes() throws {
        try withTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("a.mov").path, contents: Data())
            for (rate, fps) in [
                ("14.985014985014985", Rational(15000, 1001)), ("71.92807192807193", Rational(72000, 1001)),
                ("95.90409590409591", Rational(96000, 1001)), ("12.345678901234567", Rational(12_345_679, 1_000_000)),
            ] {
                let clip = OTIODocument.clip("A", "a.mov", source: (0, 24), rate: rate)
                let document = OTIODocument.timeline([OTIODocument.track("Video", "V1", [clip])], rate: rate)
                let result = try OTIOImport.read(
                    Array(document.utf8), file: dir.appendingPathComponent("cut.otio").path, options: .init())
                let (project, problems) = parseProjectText(JSONWriter.pretty(result.project))
                #expect(problems == [], "rate \(rate)")
                #expect(project?.output.fps == fps, "rate \(rate)")
            }
        }
    }
}
