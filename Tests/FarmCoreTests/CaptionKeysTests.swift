import FarmCore
import Foundation
import TestSupport
import Testing

/// The project keys of caption assets and items, and their messages.
@Suite struct CaptionKeysTests {
    static func project(asset: String = #"{"path": "talk.srt"}"#, item: String) -> String {
        """
        {"assets": {"subs": \(asset), "clip": {"path": "clip.mp4"}},
         "tracks": [{"kind": "video", "items": [{"asset": "subs", "at": 0, "duration": 5\(item)}]}]}
        """
    }

    @Test func captionKeysAreRead() throws {
        let (project, problems) = parseProjectText(
            Self.project(
                asset: #"{"path": "talk.txt", "type": "captions"}"#,
                item: #", "captions": {"burnIn": true, "soft": true, "language": "jpn", "safeArea": 0.05, "#
                    + #""style": {"size": 30, "font": "DejaVu Sans:bold", "verticalAlign": "top"}}"#
            ))
        let parsed = try #require(project, "\(problems)")
        #expect(parsed.assets["subs"]?.isCaptions == true)
        #expect(parsed.assets["clip"]?.isCaptions == false)
        guard case .captions(let placement) = parsed.tracks[0].items[0].content else {
            Issue.record("not a caption item")
            return
        }
        #expect(placement.asset == "subs")
        #expect(placement.burnIn && placement.soft)
        #expect(placement.language == "jpn")
        #expect(placement.safeArea == 0.05)
        #expect(placement.style.size == 30)
        #expect(placement.style.font == "DejaVu Sans:bold")
        #expect(placement.style.verticalAlignment == .top)
        #expect(placement.style.outline?.width == 2)
    }

    @Test func defaultsBurnInOnly() throws {
        let (project, problems) = parseProjectText(Self.project(item: ""))
        let parsed = try #require(project, "\(problems)")
        guard case .captions(let placement) = parsed.tracks[0].items[0].content else {
            Issue.record("not a caption item")
            return
        }
        #expect(placement.burnIn && !placement.soft)
        #expect(placement.language == "und")
        #expect(placement.safeArea == 0.1)
        #expect(placement.style.verticalAlignment == .bottom)
    }

    @Test func mistakesAreNamed() {
        let problems = parseDiagnostics(
            Self.project(
                asset: #"{"path": "talk.srt", "type": "subtitles"}"#,
                item: #", "volume": 0.5, "captions": {"burnIn": false, "soft": false, "language": "en", "#
                    + #""style": {"text": "x"}}"#
            ))
        #expect(problems.contains(#"assets.subs.type: "subtitles" is not one of media, captions"#), "\(problems)")
        #expect(
            problems.contains(
                #"tracks[0].items[0].volume: a caption file has no sound or pictures; remove "volume""#))
        #expect(
            problems.contains(
                "tracks[0].items[0].captions.language: expected an ISO 639-2 code of three lowercase letters "
                    + #"("eng"), got "en""#
            ))
        #expect(
            problems.contains { $0.hasPrefix("tracks[0].items[0].captions.style.text: unknown key") }, "\(problems)")
        #expect(
            problems.contains(
                "tracks[0].items[0].captions: neither burnIn nor soft: the cues would reach no output; set one of them")
        )
        let media = parseDiagnostics(
            """
            {"assets": {"clip": {"path": "clip.mp4", "type": "media"}},
             "tracks": [{"kind": "video", "items": [
               {"asset": "clip", "at": 0, "duration": 5, "captions": {"soft": true}}]}]}
            """)
        #expect(
            media == [
                "tracks[0].items[0].captions: only an item whose asset is a caption file takes captions; assets.clip "
                    + "(clip.mp4) is read as media: if it is a SubRip or WebVTT file, set \"type\": \"captions\" on it"
            ])
    }
}
