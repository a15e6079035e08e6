import FarmCore
import FarmRender
import Foundation
import Testing

/// The verifier child's answers are typed lines of JSON: a verdict survives the line, and a line
/// that is not one (a crash's half line, the old `ok` text, a good verdict with a reason) is
/// told apart from a verdict, so the coordinator reports no verdict rather than a wrong one.
@Suite struct SegmentVerdictTests {
    @Test func aVerdictSurvivesItsLine() throws {
        #expect(SegmentVerifier.Verdict.good.line == #"{"ok":true}"#)
        #expect(SegmentVerifier.Verdict(line: SegmentVerifier.Verdict.good.line) == .good)
        let bad = SegmentVerifier.Verdict.bad("segment does not start with a keyframe\nsecond line")
        let read = try #require(SegmentVerifier.Verdict(line: bad.line))
        #expect(read == bad)
        #expect(!bad.line.contains("\n"), "one line: \(bad.line)")
    }

    @Test func linesThatAreNoVerdictAreRefused() {
        for line in ["ok", "bad: no", "", #"{"ok":tru"#, #"{"ok":true,"reason":"x"}"#, #"{"ok":false}"#, "[]"] {
            #expect(SegmentVerifier.Verdict(line: line) == nil, "\(line)")
        }
    }

    @Test func aRequestThatCannotBeCheckedIsABadSegmentOnOneLine() throws {
        let missing = SegmentVerifier.Request(
            path: "/nonexistent/segment-7.mp4", kind: .video, length: 30, fps: Rational(30, 1), sampleRate: 48000,
            startsRender: false, endsRender: false)
        let line = String(decoding: try JSONEncoder().encode(missing), as: UTF8.self)
        let verdict = SegmentVerifier.Verdict.of(requestLine: line)
        #expect(!verdict.ok)
        #expect(verdict.reason?.contains("segment-7.mp4") == true, "\(verdict)")
        #expect(!SegmentVerifier.Verdict.of(requestLine: "not a request").ok)
    }
}
