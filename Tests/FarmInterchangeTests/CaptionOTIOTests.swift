import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// An OpenTimelineIO clip whose media is a SubRip or WebVTT file comes in as a caption item,
/// its source range trimming the cues like any clip's.
@Suite struct CaptionOTIOTests {
    @Test func aClipOfAnSRTFileIsACaptionItem() throws {
        try withTemporaryDirectory { dir in
            for name in ["a.mov", "talk.srt"] {
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data())
            }
            let picture = OTIODocument.clip("A", "a.mov", source: (0, 48))
            let subtitles = OTIODocument.clip("Subs", "talk.srt", source: (24, 48))
            let otio = OTIODocument.timeline(
                [OTIODocument.track("Video", "V1", [picture]), OTIODocument.track("Video", "Subs", [subtitles])],
                rate: "24")
            let file = dir.appendingPathComponent("cut.otio").path
            let result = try OTIOImport.read(Array(otio.utf8), file: file, options: OTIOImport.Options())
            let project = try ProjectParser(mediaRoot: dir).parse(
                Array(JSONWriter.pretty(result.project).utf8), file: file)
            let item = project.tracks[1].items[0]
            guard case .captions(let placement) = item.content else {
                Issue.record("the SRT clip is \(item.content)")
                return
            }
            #expect(project.assets[placement.asset]?.isCaptions == true)
            #expect(placement.burnIn && !placement.soft)
            #expect(item.sourceStart == Rational(1))
            #expect(item.duration == Rational(2))
        }
    }
}
