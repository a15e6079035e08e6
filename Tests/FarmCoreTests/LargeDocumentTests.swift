import FarmCore
import Foundation
import TestSupport
import Testing

/// Documents far larger than any real one still parse, whole and right (the time they take is
/// measured in docs/project-format.md, not here).
@Suite struct LargeDocumentTests {
    @Test func aTenMegabyteStringParsesWhole() throws {
        // Multi-byte characters and escapes all through it.
        let piece = "dossier é ✓ \\\"quoted\\\" \\u00e9 "
        let written = String(repeating: piece, count: (10 << 20) / piece.utf8.count)
        let json = #"{"output": {"fps": "30"}, "assets": {"a": {"path": "\#(written)"}}, "tracks": []}"#
        let document = try JSONParser.parse(Array(json.utf8))
        guard case .object(let root) = document, case .object(let assets) = root[1].value,
            case .object(let asset) = assets[0].value, case .string(let path) = asset[0].value
        else {
            Issue.record("unexpected shape")
            return
        }
        let read = String(repeating: "dossier é ✓ \"quoted\" é ", count: (10 << 20) / piece.utf8.count)
        #expect(path.utf8.count == read.utf8.count)
        #expect(path == read)
    }

    @Test func fiftyThousandItemsParse() {
        let items = (0..<50_000).map { ##"{"solid": "#102030", "at": "\##($0)", "duration": "1"}"## }
        let json = """
            {"output": {"width": 64, "height": 64, "fps": "30"}, "assets": {},
             "tracks": [{"kind": "video", "items": [\(items.joined(separator: ",\n"))]}]}
            """
        let (project, problems) = parseProjectText(json)
        #expect(problems == [])
        #expect(project?.tracks[0].items.count == 50_000)
        #expect(project?.tracks[0].items.last?.end == Rational(50_000))
    }
}
