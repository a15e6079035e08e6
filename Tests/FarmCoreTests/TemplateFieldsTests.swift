import FarmCore
import Foundation
import Testing

/// A project with `fields` is a template: its placeholders take merged values with their
/// types, and every problem is named by where it is (the value's field, the placeholder's path).
@Suite struct TemplateFieldsTests {
    static let template = """
        {"fields": {"CITY": {"type": "string"}, "LEVEL": {"type": "number", "default": 1},
                    "COUNT": {"type": "integer", "default": 3}, "LOUD": {"type": "boolean", "default": false}},
         "tracks": [{"items": [{"text": "Hello {{ CITY }}, {{COUNT}} times", "opacity": "{{ LEVEL }}",
                                "loud": "{{ LOUD }}", "braces": "{{ not a name }}"}]}]}
        """

    static func merged(_ values: [String: TemplateFields.Value], _ text: String = template) throws -> JSONValue {
        let text = try TemplateFields.mergedText(Array(text.utf8), values: values, valuesPath: "merge", file: "t.json")
        return try JSONParser.parse(Array((text ?? "").utf8))
    }

    static func item(_ document: JSONValue) -> [String: JSONValue] {
        guard case .object(let root) = document,
            case .array(let tracks) = root.first(where: { $0.key == "tracks" })!.value,
            case .object(let track) = tracks[0], case .array(let items) = track[0].value,
            case .object(let item) = items[0]
        else { return [:] }
        return Dictionary(uniqueKeysWithValues: item.map { ($0.key, $0.value) })
    }

    @Test func aPlaceholderAloneTakesTheValuesTypeAndInTextItsText() throws {
        let item = Self.item(try Self.merged(["CITY": .text("Rio, BR"), "LEVEL": .json(.number("0.5"))]))
        #expect(item["text"] == .string("Hello Rio, BR, 3 times"))
        #expect(item["opacity"] == .number("0.5"))
        #expect(item["loud"] == .bool(false))
        // Not a field name: left as text.
        #expect(item["braces"] == .string("{{ not a name }}"))
        let fromText = Self.item(
            try Self.merged(["CITY": .text("Oslo"), "LEVEL": .text(" 0.25 "), "LOUD": .text("yes")]))
        #expect(fromText["opacity"] == .number("0.25"))
        #expect(fromText["loud"] == .bool(true))
    }

    @Test func missingIllTypedAndUnknownValuesAreNamedOnce() throws {
        let error = #expect(throws: ProjectError.self) {
            try Self.merged(["CITTY": .text("x"), "LEVEL": .text("abc"), "COUNT": .json(.number("2.5"))])
        }
        #expect(
            error?.description.components(separatedBy: "\n") == [
                "t.json: merge.CITTY: no such field in the template (fields: CITY, LEVEL, COUNT, LOUD); "
                    + "did you mean \"CITY\"?",
                "t.json: merge.LEVEL: expected a number for LEVEL, got \"abc\"",
                "t.json: merge.COUNT: expected an integer for COUNT, got a number",
                "t.json: tracks[0].items[0].text: {{ CITY }} has no value: give one (merge values, a CSV column) "
                    + "or a default",
            ])
    }

    @Test func declarationsAreChecked() throws {
        let bad = """
            {"fields": {"1X": {"type": "string"}, "A": {"type": "colour"}, "B": {"type": "number", "default": "x"},
                        "C": {"type": "string", "min": 1}}, "tracks": ["{{ D }}"]}
            """
        let error = #expect(throws: ProjectError.self) { try Self.merged([:], bad) }
        let lines = error?.diagnostics.map(\.description) ?? []
        #expect(lines.contains("fields.1X: a field name is a letter or _ then letters, digits or _ (got \"1X\")"))
        #expect(
            lines.contains { $0.hasPrefix("fields.A.type: \"colour\" is not one of string, number, integer, boolean") })
        #expect(lines.contains("fields.B.default: expected a number for B, got a string"))
        #expect(lines.contains { $0.hasPrefix("fields.C.min: unknown key") })
        let undeclared = #expect(throws: ProjectError.self) {
            try Self.merged([:], #"{"fields": {"CITY": {"type": "string", "default": "x"}}, "t": "{{ CITI }}"}"#)
        }
        #expect(
            undeclared?.description
                == "t.json: t: {{ CITI }} names no field declared under fields; did you mean \"CITY\"?")
    }

    @Test func aProjectWithoutFieldsIsNoTemplate() throws {
        let plain = #"{"tracks": [{"text": "{{ CITY }}"}]}"#
        #expect(
            try TemplateFields.mergedText(Array(plain.utf8), values: [:], valuesPath: "merge", file: "p.json") == nil)
        let error = #expect(throws: ProjectError.self) {
            try TemplateFields.mergedText(
                Array(plain.utf8), values: ["CITY": .text("x")], valuesPath: "merge", file: "p.json")
        }
        #expect(
            error?.description.hasPrefix("p.json: fields: this project declares no fields, so it takes no merge values")
                == true)
    }

    @Test func placeholdersFillAPattern() throws {
        #expect(
            try Placeholder.fill("out/{{ row }}-{{CITY}}.mp4", with: ["row": "7", "CITY": "Oslo"]) == "out/7-Oslo.mp4")
        let unknown = #expect(throws: Placeholder.Unknown.self) {
            try Placeholder.fill("{{ A }}{{ B }}", with: ["A": "1"])
        }
        #expect(unknown?.names == ["B"])
    }
}

/// CSV as spreadsheets write it.
@Suite struct CSVRowsTests {
    @Test func quotedFieldsCRLFAndAByteOrderMark() throws {
        let table = try CSVRows.parse("\u{FEFF}CITY,NOTE\r\n\"Rio, BR\",\"say \"\"hi\"\"\r\nthere\"\r\n\r\nOslo,\n")
        #expect(table.header == ["CITY", "NOTE"])
        #expect(
            table.rows.map(\.values) == [
                ["CITY": "Rio, BR", "NOTE": "say \"hi\"\r\nthere"], ["CITY": "Oslo", "NOTE": ""],
            ])
        #expect(table.rows.map(\.number) == [1, 2])
        #expect(table.rows.map(\.line) == [2, 5])
    }

    @Test func problemsNameTheirLine() throws {
        for (text, message) in [
            ("A,B\n1,2\n3\n", "line 3: 1 fields where the header names 2 columns"),
            ("A,A\n", "line 1: the column \"A\" is named twice"),
            ("A\n\"open\n", "line 2: a quoted field is never closed"),
            ("A\n\"x\"y\n", "line 2: text after a closing quote; a quote inside a field is doubled"),
            ("", "line 1: the file is empty: no header row"),
        ] {
            let error = #expect(throws: CSVRows.Problem.self) { try CSVRows.parse(text) }
            #expect(error?.description == message)
        }
    }
}
