import FarmCore
import Foundation
import Testing

/// SubRip and WebVTT as players read them, and the one message a bad file gets.
@Suite struct CaptionFileTests {
    func cues(_ text: String, file: String = "talk.srt", bom: Bool = false) throws -> [CaptionCue] {
        try CaptionFileParser.parse(
            (bom ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8), file: file,
            format: CaptionFormat(fileName: file))
    }

    func failure(_ text: String, file: String = "talk.srt") -> String {
        do {
            _ = try cues(text, file: file)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func subRipWithMarkOrderCRLFAndTags() throws {
        let text =
            "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hello</i> <b>there</b>,\r\n"
            + "{\\an8}<font color=\"red\">two</font> lines\r\n\r\n"
            + "2\r\n00:00:03.5 --> 00:00:04.25\r\nFish &amp; chips &lt;3\r\n\r\n"
            + "3\r\n1:00:00,000 --> 1:00:01,000\r\nan hour in\r\n"
        let read = try cues(text, bom: true)
        #expect(read.map(\.text) == ["Hello there,\ntwo lines", "Fish & chips <3", "an hour in"])
        #expect(read.map(\.start) == [Rational(1), Rational(7, 2), Rational(3600)])
        #expect(read.map(\.end) == [Rational(5, 2), Rational(17, 4), Rational(3601)])
        #expect(read.map(\.line) == [2, 7, 11])
    }

    @Test func webVTTSkipsHeaderNotesStylesAndSettings() throws {
        let text = """
            WEBVTT - a talk
            Kind: captions

            STYLE
            ::cue { color: yellow }

            NOTE this is
            a comment

            intro
            00:01.000 --> 00:02.000 align:start line:0 position:10%
            <v Ann>Hi</v> <c.loud>all</c><00:01.500> here

            00:00:02.000 --> 00:00:03.000
            second
            """
        let read = try cues(text, file: "talk.vtt")
        #expect(read.map(\.text) == ["Hi all here", "second"])
        #expect(read.map(\.start) == [Rational(1), Rational(2)])
        #expect(read[0].line == 11)
    }

    @Test func cuesAreOrderedByStart() throws {
        let read = try cues("2\n00:00:05,000 --> 00:00:06,000\nlater\n\n1\n00:00:01,000 --> 00:00:02,000\nsooner\n")
        #expect(read.map(\.text) == ["sooner", "later"])
    }

    @Test func aBadFileGetsOneMessageWithItsLine() {
        let backwards = "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:04,000 --> 00:00:03,000\nbackwards\n"
        #expect(failure(backwards) == "talk.srt:6: cue end 00:00:03,000 is before its start 00:00:04,000")
        #expect(
            failure("1\n00:00:0x,000 --> 00:00:02,000\nx\n")
                == #"talk.srt:2: cue start "00:00:0x,000" is not a time such as 00:01:02,500"#)
        #expect(
            failure("1\n00:00:01,000 --> 00:00:61,000\nx\n")
                == #"talk.srt:2: cue end "00:00:61,000" is not a time such as 00:01:02,500"#)
        #expect(
            failure("hello\nworld\n")
                == "talk.srt:1: expected a cue number or a timing line such as 00:00:01,000 --> 00:00:02,000, "
                + #"got "hello""#
        )
        #expect(
            failure("00:00:01.000 --> 00:00:02.000\nx\n", file: "a.vtt")
                == "a.vtt:1: a WebVTT file starts with the line WEBVTT")
        #expect(failure("\n\n", file: "empty.srt") == "empty.srt: holds no cues")
        #expect(failure("1\n00:00:01,000 --> 00:00:02,000\n\u{FFFD}", file: "ok.srt") == "no error")
    }

    @Test func notUTF8IsRefused() {
        #expect(throws: CaptionFileError.self) {
            try CaptionFileParser.parse([0x31, 0x0A, 0xFF, 0xFE], file: "latin.srt")
        }
    }
}
