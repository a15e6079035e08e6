import Foundation

/// Writes `--json` output: stable key order, one document (or one line per document for streams).
enum JSONOutput {
    static func print<T: Encodable>(_ value: T, lines: Bool = false) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            lines ? [.sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.writeUnlessClosed(data)
    }
}
