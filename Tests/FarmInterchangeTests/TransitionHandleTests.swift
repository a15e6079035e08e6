import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// A transition over media without enough handle: refused unless the project says to hold the
/// edge frames (`"handles": "hold"`), which an OTIO import says for every transition, as editors
/// play them, with a note where it sees the media fall short.
@Suite struct TransitionHandleTests {
    static func project(_ keys: String) -> String {
        """
        {"output": {"width": 64, "height": 64, "fps": "30"}, "assets": {"a": {"path": "a.mov"}},
         "tracks": [{"kind": "video", "items": [
             {"asset": "a", "at": "0", "duration": "2"}, {"asset": "a", "at": "2", "duration": "2"}],
           "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "1"\(keys)}]}]}
        """
    }

    @Test func handlesAreRequiredOrHeld() {
        #expect(parseDiagnostics(Self.project(#", "handles": "hold""#)) == [])
        #expect(parseDiagnostics(Self.project(#", "handles": "required""#)) == [])
        #expect(
            parseDiagnostics(Self.project(#", "handles": "freeze""#)) == [
                #"tracks[0].transitions[0].handles: "freeze" is not one of required, hold"#
            ])
    }

    /// DaVinci Resolve's cross-fade of 30 frames each side over two clips cut at their media's
    /// ends: A's media ends at the cut, B's starts there.
    @Test func anOTIOCrossFadeWithoutHandlesIsImportedHoldingTheEdges() throws {
        try withTemporaryDirectory { dir in
            for name in ["a.mov", "b.mov"] {
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data())
            }
            let fade = OTIODocument.transition(in: 30, out: 30).replacingOccurrences(
                of: #""name": """#, with: #""name": "Cross Dissolve""#)
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mov", source: (0, 48), available: (0, 48)), fade,
                            OTIODocument.clip("B", "b.mov", source: (0, 48), available: (0, 240)),
                        ])
                ], rate: "24")
            let result = try OTIOImport.read(
                Array(document.utf8), file: dir.appendingPathComponent("cut.otio").path, options: .init())
            #expect(
                result.notes.map(\.description) == [
                    #"tracks.children[0].children[1]: Transition "Cross Dissolve": Clip "A" has 1.250 s less media "#
                        + "after its end than the transition needs; its last frame is held there, its sound silent",
                    #"tracks.children[0].children[1]: Transition "Cross Dissolve": Clip "B" has 1.250 s less media "#
                        + "before its start than the transition needs; its first frame is held there, its sound silent",
                ])
            let text = JSONWriter.pretty(result.project)
            #expect(text.contains(#""handles": "hold""#), "\(text)")
            #expect(parseProjectText(text).1 == [])
        }
    }

    /// A transition whose media covers it is imported without a note (still holding, should
    /// the media prove shorter than the document says).
    @Test func anOTIOTransitionWithHandlesHasNoNote() throws {
        try withTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("a.mov").path, contents: Data())
            let document = OTIODocument.timeline(
                [
                    OTIODocument.track(
                        "Video", "V1",
                        [
                            OTIODocument.clip("A", "a.mov", source: (0, 48), available: (0, 240)),
                            OTIODocument.transition(in: 12, out: 12),
                            OTIODocument.clip("B", "a.mov", source: (96, 48), available: (0, 240)),
                        ])
                ], rate: "24")
            let result = try OTIOImport.read(
                Array(document.utf8), file: dir.appendingPathComponent("cut.otio").path, options: .init())
            #expect(result.notes.isEmpty)
        }
    }
}
