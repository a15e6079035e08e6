import FarmCore
import Foundation
import Testing

/// What a chunk's key is hashed from: one value, one set of bytes; two values, two.
@Suite struct CanonicalEncoderTests {
    private struct Pair: Encodable {
        var a: Int
        var b: Int
    }

    private struct Optionals: Encodable {
        var name: String?
        var count: Int
    }

    private enum Shape: Encodable {
        case circle(radius: Double)
        case square(side: Double)
    }

    @Test func aDictionaryGivesTheSameBytesWhateverItsOrder() {
        // Built up in two orders, and several sizes so that the hash order differs from both.
        for size in [2, 9, 40] {
            let keys = (0..<size).map { "key\($0)" }
            var forward: [String: Int] = [:]
            for (value, key) in keys.enumerated() { forward[key] = value }
            var backward: [String: Int] = [:]
            for (value, key) in keys.enumerated().reversed() { backward[key] = value }
            #expect(CanonicalEncoder.bytes(of: forward) == CanonicalEncoder.bytes(of: backward))
        }
        // Keyed containers are sorted by key, so the dictionary reads as the struct does.
        #expect(CanonicalEncoder.bytes(of: ["b": 1, "a": 2]) == CanonicalEncoder.bytes(of: Pair(a: 2, b: 1)))
    }

    @Test func differentValuesNeverShareBytes() {
        func bytes(_ value: some Encodable) -> [UInt8] { CanonicalEncoder.bytes(of: value) }
        let pairs: [([UInt8], [UInt8], String)] = [
            (bytes(["ab", "c"]), bytes(["a", "bc"]), "strings are length-prefixed"),
            (bytes([[1], [2]]), bytes([[1, 2]]), "arrays are length-prefixed"),
            (bytes(Pair(a: 1, b: 2)), bytes(Pair(a: 2, b: 1)), "values stay with their keys"),
            (bytes(["a": 1]), bytes(["b": 1]), "keys count"),
            (bytes(1), bytes(1.0), "an integer is not a double"),
            (bytes(1), bytes(UInt(1)), "signed is not unsigned"),
            (bytes(0.0), bytes(-0.0), "doubles by their bits"),
            (bytes(true), bytes(1), "a bool is not an integer"),
            (bytes(Optionals(name: nil, count: 1)), bytes(Optionals(name: "", count: 1)), "absent is not empty"),
            (bytes(Shape.circle(radius: 1)), bytes(Shape.square(side: 1)), "enum cases"),
            (bytes("é"), bytes("e\u{301}"), "strings by their UTF-8 bytes: another render, never a wrong reuse"),
        ]
        for (first, second, why) in pairs {
            #expect(first != second, "\(why)")
        }
    }

    @Test func equalValuesGiveEqualBytes() {
        #expect(
            CanonicalEncoder.bytes(of: Shape.circle(radius: 2)) == CanonicalEncoder.bytes(of: Shape.circle(radius: 2)))
        // An Int reached through the generic overload (inside an array) is the Int written directly.
        #expect(CanonicalEncoder.bytes(of: [Pair(a: 3, b: 4)]) == CanonicalEncoder.bytes(of: [["a": 3, "b": 4]]))
    }
}
