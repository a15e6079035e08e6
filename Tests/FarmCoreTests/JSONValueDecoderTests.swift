import FarmCore
import Testing

/// `JSONValueDecoder`: every refusal at the exact path of the value it refuses, with the type
/// the field takes, where Foundation's decoder reports a number that does not fit with no path.
@Suite struct JSONValueDecoderTests {
    struct Shot: Decodable, Equatable {
        var frames: [Int]
        var take: Take?
    }
    struct Take: Decodable, Equatable {
        var gain: Double
        var label: String
        var kept: Bool
    }

    static func decode(_ text: String) throws -> Shot {
        try JSONValueDecoder.decode(Shot.self, from: JSONParser.parse(Array(text.utf8)))
    }

    /// The refusal's kind, its JSON path and the type it names.
    static func refusal(_ text: String) -> (kind: String, path: String, type: String)? {
        do {
            _ = try decode(text)
            return nil
        } catch DecodingError.typeMismatch(let type, let context) {
            return ("typeMismatch", JSONValueDecoder.path(context.codingPath), "\(type)")
        } catch DecodingError.valueNotFound(let type, let context) {
            return ("valueNotFound", JSONValueDecoder.path(context.codingPath), "\(type)")
        } catch DecodingError.keyNotFound(let key, let context) {
            return ("keyNotFound", JSONValueDecoder.path(context.codingPath + [key]), "")
        } catch {
            return ("other", "\(error)", "")
        }
    }

    @Test func valuesThatFitDecode() throws {
        #expect(
            try Self.decode(#"{"frames": [1, 2.0, -3e0], "take": {"gain": 1e-3, "label": "a", "kept": true}}"#)
                == Shot(frames: [1, 2, -3], take: Take(gain: 0.001, label: "a", kept: true)))
        #expect(try Self.decode(#"{"frames": [], "take": null}"#) == Shot(frames: [], take: nil))
    }

    @Test func eachRefusalNamesItsPathAndType() {
        #expect(Self.refusal(#"{"frames": [1, 1.5]}"#)! == ("typeMismatch", "frames[1]", "Int"))
        #expect(Self.refusal(#"{"frames": [99999999999999999999]}"#)! == ("typeMismatch", "frames[0]", "Int"))
        #expect(Self.refusal(#"{"frames": [null]}"#)! == ("valueNotFound", "frames[0]", "Int"))
        #expect(Self.refusal(#"{"frames": {}}"#)! == ("typeMismatch", "frames", "Array<Any>"))
        #expect(Self.refusal(#"[]"#)! == ("typeMismatch", "", "Dictionary<String, Any>"))
        #expect(Self.refusal(#"{"frames": [], "take": {"gain": "loud"}}"#)! == ("typeMismatch", "take.gain", "Double"))
        #expect(Self.refusal(#"{"frames": [], "take": {"gain": 1e400}}"#)! == ("typeMismatch", "take.gain", "Double"))
        #expect(Self.refusal(#"{"frames": [], "take": {"gain": 1}}"#)! == ("keyNotFound", "take.label", ""))
        #expect(
            Self.refusal(#"{"frames": [], "take": {"gain": 1, "label": "a", "kept": "yes"}}"#)!
                == ("typeMismatch", "take.kept", "Bool"))
    }

    @Test func theValueAtAPathIsFound() throws {
        let document = try JSONParser.parse(Array(#"{"a": [{"b": 7}]}"#.utf8))
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        #expect(document.value(at: [Key("a"), JSONIndexKey(intValue: 0), Key("b")]) == .number("7"))
        #expect(document.value(at: [Key("a"), JSONIndexKey(intValue: 1)]) == nil)
        #expect(JSONValueDecoder.path([Key("a"), JSONIndexKey(intValue: 0), Key("b")]) == "a[0].b")
    }
}
