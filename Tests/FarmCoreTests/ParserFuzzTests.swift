import FarmCore
import Foundation
import TestSupport
import Testing

/// Mutated projects through the parser: it must never trap, hang or echo a value whole; every
/// diagnostic is one short line. The mutations are seeded, so a failure replays exactly.
/// `FARM_FUZZ_INPUTS` sets how many (default 3000; the recorded run used 100,000).
@Suite struct ParserFuzzTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples")

    /// Values that broke parsers before: huge and odd numbers and times, long and odd strings.
    static let hostile: [String] = [
        "123456789012345678", "1e308", "-1e308", "1e-320", "99999999999999999999999", "-0", "0.0000000001",
        "\"123456789012345678/7\"", "\"1/0\"", "\"1/2/3\"", "\"-9223372036854775808\"", "\"30000/1001\"",
        "\"\\ud800\\u0041\"", "\"\\ud800\"", "\"\\u0000\"", "\"\\uZZZZ\"", "\"\\u+041\"",
        "\"\\\\\\\\\"", "\"é漢🙂\"",
        "\"" + String(repeating: "a", count: 20000) + "\"", "\"" + String(repeating: "\\u0041", count: 5000) + "\"",
        "\"line\\nbreak\"", "[]", "{}", "null", "true", String(repeating: "[", count: 300), "\"#FFFFFF\"",
        "{\"keys\": [[\"0\", 1e308], [\"1e9\", -1e308]]}",
    ]

    static func mutate(_ text: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = text
        for _ in 0...random.below(3) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0: bytes[at] ^= UInt8(1 << random.below(8))
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(16)))
            case 2: bytes = Array(bytes.prefix(at))
            case 3: bytes.insert(UInt8(random.below(256)), at: at)
            default:
                // Replace the value after a colon with a hostile one.
                guard let colon = bytes[at...].firstIndex(of: UInt8(ascii: ":")) else { continue }
                let end = bytes[(colon + 1)...].firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") }
                let value = Array(hostile[random.below(hostile.count)].utf8)
                bytes.replaceSubrange((colon + 1)..<(end ?? bytes.count), with: value)
            }
        }
        return bytes
    }

    @Test func mutatedProjectsNeverTrapAndSayOneShortLineEach() throws {
        let seeds = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path)
            .filter { $0.hasSuffix(".json") }.sorted()
            .map { Array(try Data(contentsOf: Self.examples.appendingPathComponent($0))) }
        #expect(seeds.count >= 6)
        let count = ProcessInfo.processInfo.environment["FARM_FUZZ_INPUTS"].flatMap(Int.init) ?? 3000
        var random = SeededRandom(state: 20_261_122)
        var (accepted, rejected) = (0, 0)
        for _ in 0..<count {
            let input = Self.mutate(seeds[random.below(seeds.count)], &random)
            do {
                _ = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(input, file: "p.json")
                accepted += 1
            } catch let error as ProjectError {
                rejected += 1
                for diagnostic in error.diagnostics.map(\.description) {
                    if diagnostic.contains("\n") || diagnostic.count > 600 {
                        Issue.record("a diagnostic of \(diagnostic.count) characters: \(diagnostic.prefix(200))")
                        return
                    }
                }
            }
        }
        print("parser fuzz: \(count) inputs, \(accepted) accepted, \(rejected) rejected, no trap")
        #expect(accepted + rejected == count)
        #expect(rejected > count / 2, "the mutations must reach the validation")
    }
}
