import FarmCore
import Foundation
import TestSupport
import Testing

/// What the parser says about the editing features when they are written wrong: one message
/// each, at the key's JSON path.
@Suite struct EditingParserTests {
    func diagnostics(items: String, transitions: String = "") -> [String] {
        let json = """
            {"assets": {"a": {"path": "a.mp4"}},
             "tracks": [{"kind": "video", "items": [\(items)]\(transitions)}]}
            """
        return parseDiagnostics(json)
    }

    @Test(arguments: [
        (
            ##"{"asset": "a", "solid": "#FFFFFF", "at": "0", "duration": "1"}"##,
            ##"tracks[0].items[0]: has "asset" and "solid"; an item shows exactly one"##
        ),
        (
            ##"{"at": "0", "duration": "1"}"##,
            ##"tracks[0].items[0]: needs "asset" (a media id), "solid" (a colour), "gradient" or "title""##
        ),
        (
            ##"{"gradient": {"colors": ["#000000"]}, "at": "0", "duration": "1"}"##,
            ##"tracks[0].items[0].gradient.colors: expected at least two colours, e.g. ["#000000", "#FFFFFF"]"##
        ),
        (
            ##"{"solid": "#000000", "at": "0", "duration": "1", "volume": 0.5}"##,
            ##"tracks[0].items[0].volume: a generated picture has no media; remove "volume""##
        ),
        (
            ##"{"asset": "a", "at": "0", "duration": "1", "scale": [1, 80]}"##,
            "tracks[0].items[0].scale: factors must be from -64 to 64 (got [1.0, 80.0])"
        ),
        (
            ##"{"asset": "a", "at": "0", "duration": "1", "rotation": {"keys": [["0", "x"]]}}"##,
            ##"tracks[0].items[0].rotation.keys[0][1]: expected a number, got "x""##
        ),
        (
            ##"{"asset": "a", "at": "0", "duration": "1", "timeMap": [["0", "1"]], "source": {"start": "1"}}"##,
            ##"tracks[0].items[0].timeMap: gives the media times itself; remove "source""##
        ),
        (
            ##"{"asset": "a", "at": "0", "duration": "1", "timeMap": [["1", "0"], ["0.5", "1"]]}"##,
            "tracks[0].items[0].timeMap[1][0]: item times must increase (1/2 after 1)"
        ),
        (
            ##"{"asset": "a", "at": "0", "duration": "1", "freeze": "1", "reverse": true}"##,
            ##"tracks[0].items[0]: has "freeze" and "reverse"; use one of them"##
        ),
        (
            ##"{"title": {"text": ""}, "at": "0", "duration": "1"}"##,
            "tracks[0].items[0].title.text: is empty"
        ),
    ])
    func itemMistakes(item: String, message: String) {
        let found = diagnostics(items: item)
        #expect(found.contains(message), "\(found)")
    }

    @Test(arguments: [
        (
            ##"[{"between": [0, 1], "type": "dissolve", "duration": "1"}]"##,
            "tracks[0].transitions[0].between: items[0] ends at 1 but items[1] starts at 2; "
                + "a transition joins an item to the one starting where it ends"
        ),
        (
            ##"[{"between": [0, 2], "type": "fade", "duration": "1"}]"##,
            ##"tracks[0].transitions[0].type: "fade" is not one of dissolve, dip, wipe, push, slide"##
        ),
        (
            ##"[{"between": [1, 2], "type": "wipe", "duration": "1", "inOffset": "0.5"}]"##,
            ##"tracks[0].transitions[0]: give either "duration" (centred on the cut) "##
                + ##"or both "inOffset" and "outOffset""##
        ),
    ])
    func transitionMistakes(transitions: String, message: String) {
        let items = ##"""
            {"asset": "a", "at": "0", "duration": "1"}, {"asset": "a", "at": "2", "duration": "1"},
            {"asset": "a", "at": "3", "duration": "1"}
            """##
        let found = diagnostics(items: items, transitions: ", \"transitions\": \(transitions)")
        #expect(found.contains(message), "\(found)")
    }
}
