import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// OpenTimelineIO's JSON is RFC 8259 plus the words its reader takes for non-finite doubles;
/// the farm's own project JSON stays strict.
@Suite struct JSONExtensionTests {
    static func parse(_ text: String, _ extensions: JSONParser.Extensions = []) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8), extensions: extensions)
    }

    @Test func nonFiniteWordsAreNumbersOnlyWhereAsked() throws {
        let words = ["NaN", "-NaN", "Inf", "-Inf", "Infinity", "-Infinity"]
        let read = try Self.parse("[\(words.joined(separator: ", "))]", .nonFiniteNumbers)
        #expect(read == .array(words.map { .number($0) }))
        let strict = #expect(throws: JSONSyntaxError.self) { try Self.parse("[1,\n Infinity]") }
        #expect(strict?.description == "line 2, column 2: unexpected character 'I'")
        for bad in ["Infinit", "nan", "-Nan", "- Inf", "Infinityy"] {
            #expect(throws: JSONSyntaxError.self, "\(bad)") { try Self.parse("[\(bad)]", .nonFiniteNumbers) }
        }
    }

    /// As OTIO 0.18 writes a clip whose metadata holds infinities, a NaN and (from another
    /// writer) an integer beyond 64 bits: none of it stops the import.
    @Test func anOTIODocumentWithThemInItsMetadataImports() throws {
        try withTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("a.mov").path, contents: Data())
            let metadata = #"""
                "metadata": {"Resolve": {"peak": Infinity, "floor": -Infinity, "gain": NaN, "old": Inf,
                  "low": -Inf, "bits": 123456789012345678901234567890, "neg": -123456789012345678901234567890}},
                """#
            let clip = OTIODocument.clip("A", "a.mov", source: (0, 24)).replacingOccurrences(
                of: #""metadata": {},"#, with: metadata)
            let document = OTIODocument.timeline([OTIODocument.track("Video", "V1", [clip])], rate: "24")
            let result = try OTIOImport.read(
                Array(document.utf8), file: dir.appendingPathComponent("cut.otio").path, options: .init())
            #expect(result.notes.isEmpty)
            let text = JSONWriter.pretty(result.project)
            let project = try ProjectParser(mediaRoot: dir).parse(Array(text.utf8), file: "cut.json")
            #expect(project.tracks[0].items.map(\.duration) == [Rational(1)])
        }
    }

    @Test func aNonFiniteTimeIsAProblemNamingIt() throws {
        let clip = OTIODocument.clip("A", "a.mov", source: (0, 24)).replacingOccurrences(
            of: #""rate": 24, "value": 24"#, with: #""rate": 24, "value": Infinity"#)
        let document = OTIODocument.timeline([OTIODocument.track("Video", "V1", [clip])], rate: "24")
        let error = #expect(throws: ProjectError.self) {
            try OTIOImport.read(Array(document.utf8), file: "cut.otio", options: .init())
        }
        #expect(
            error?.diagnostics.map(\.description).contains(
                "tracks.children[0].children[0].source_range.duration: RationalTime needs a numeric value, "
                    + "got Infinity") == true, "\(String(describing: error))")
    }

    @Test func theProjectFormatStaysStrict() {
        let problems = parseDiagnostics(
            #"{"output": {"width": 64, "height": 64, "fps": NaN}, "assets": {}, "tracks": []}"#)
        #expect(problems == ["malformed JSON at line 1, column 47: unexpected character 'N'"])
    }
}
