import FarmCore
import Foundation
import TestSupport
import Testing

/// Keyframe curves: each named curve and a custom Bézier, against an independent evaluation, and
/// the parser's words for them.
@Suite struct InterpolationTests {
    @Test func curvesMatchAnIndependentEvaluation() {
        let cases: [(Interpolation, (Double) -> Double)] = [
            (.linear, { $0 }),
            (.hold, { $0 >= 1 ? 1 : 0 }),
            (.easeIn, { cubicBezierReference(0.42, 0, 1, 1, at: $0) }),
            (.easeOut, { cubicBezierReference(0, 0, 0.58, 1, at: $0) }),
            (.easeInOut, { cubicBezierReference(0.42, 0, 0.58, 1, at: $0) }),
            (.bezier(x1: 0.1, y1: 0.8, x2: 0.2, y2: 1), { cubicBezierReference(0.1, 0.8, 0.2, 1, at: $0) }),
        ]
        for (curve, expected) in cases {
            for step in 0...20 {
                let x = Double(step) / 20
                #expect(abs(curve.ease(x) - expected(x)) < 1e-9, "\(curve) at \(x)")
            }
        }
        // Easing shapes, by hand: ease-in starts slow, ease-out fast, ease-in-out is symmetric.
        #expect(Interpolation.easeIn.ease(0.5) < 0.35)
        #expect(Interpolation.easeOut.ease(0.5) > 0.65)
        #expect(abs(Interpolation.easeInOut.ease(0.5) - 0.5) < 1e-9)
    }

    @Test func keyframesUseTheCurveOfTheKeyThatStartsTheSegment() {
        let opacity = Animated<Double>.keys([
            Keyframe(time: .zero, value: 0, interpolation: .easeIn),
            Keyframe(time: Rational(1), value: 1, interpolation: .hold),
            Keyframe(time: Rational(2), value: 0),
        ])
        #expect(opacity.value(at: Rational(1, 2)) == Interpolation.easeIn.ease(0.5))
        #expect(opacity.value(at: Rational(1)) == 1)
        #expect(opacity.value(at: Rational(199, 100)) == 1)
        #expect(opacity.value(at: Rational(2)) == 0)
    }

    func parse(_ key: String) -> (Project?, [String]) {
        let json = """
            {"assets": {"a": {"path": "a.mp4"}},
             "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "2",
               "opacity": {"keys": [["0", 0, \(key)], ["1", 1]]}}]}]}
            """
        return parseProjectText(json)
    }

    @Test func theParserReadsEveryCurveAndNamesMistakes() throws {
        for (text, curve) in [
            ("\"linear\"", Interpolation.linear), ("\"hold\"", .hold), ("\"ease-in\"", .easeIn),
            ("\"ease-out\"", .easeOut), ("\"ease-in-out\"", .easeInOut),
            ("{\"bezier\": [0.25, 0.1, 0.25, 1]}", .bezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)),
        ] {
            let project = try #require(parse(text).0, "\(text)")
            guard case .keys(let keys) = project.tracks[0].items[0].opacity else {
                Issue.record("\(text): not keyframed")
                continue
            }
            #expect(keys[0].interpolation == curve)
        }
        #expect(
            parse("\"ease-inn\"").1 == [
                #"tracks[0].items[0].opacity.keys[0][2]: unknown interpolation "ease-inn" (did you mean "#
                    + #""ease-in"?); use linear, hold, ease-in, ease-out, ease-in-out or {"bezier": [x1, y1, x2, y2]}"#
            ])
        #expect(
            parse("{\"bezier\": [1.5, 0, 0.5, 1]}").1 == [
                "tracks[0].items[0].opacity.keys[0][2].bezier[0]: a control point's x must be from 0 to 1 (got 1.5)"
            ])
    }
}
