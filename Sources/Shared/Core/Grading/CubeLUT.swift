import Foundation

/// A 3D LUT read from a `.cube` file (the Resolve / Adobe "Cube LUT Specification 1.0" text):
/// `TITLE`, `LUT_3D_SIZE`, `DOMAIN_MIN`, `DOMAIN_MAX`, `#` comments, then size³ lines of
/// `R G B` with red changing fastest.
public struct CubeLUT: Sendable, Hashable {
    public var title: String?
    /// Points along each axis, 2–256.
    public var size: Int
    public var domainMin: [Float]
    public var domainMax: [Float]
    /// Output triples, `(r × size² + g × size + b) × 3`: the layout ffmpeg's lut3d uses.
    public var values: [Float]

    /// The sizes ffmpeg's lut3d accepts.
    public static let sizes = 2...256

    /// Parses a `.cube` file's text; `file` names it in the error.
    public static func parse(_ text: String, file: String) throws -> CubeLUT {
        var title: String?
        var size: Int?
        var domainMin: [Float] = [0, 0, 0]
        var domainMax: [Float] = [1, 1, 1]
        var points: [Float] = []
        var lineNumber = 0
        // Where the checks made after the last line point: the domain's line, the last data line.
        var domainLine = 0
        var lastDataLine = 0
        func fail(_ message: String) -> CubeLUTError { CubeLUTError(file: file, line: lineNumber, message: message) }
        // Windows editors' byte-order mark and CRLF line ends are read as the text around them.
        let body = text.hasPrefix("\u{FEFF}") ? Substring(text.dropFirst()) : Substring(text)
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let keyword = String(words[0])
            if let first = keyword.first, first.isNumber || first == "-" || first == "+" || first == "." {
                guard let size else { throw fail("a data line before LUT_3D_SIZE") }
                guard words.count == 3, let triple = Self.numbers(words) else {
                    throw fail("expected three numbers (R G B), got \"\(line.prefix(60))\"")
                }
                guard points.count < size * size * size * 3 else {
                    throw fail("more than \(size)³ = \(size * size * size) data lines")
                }
                points += triple
                lastDataLine = lineNumber
                continue
            }
            guard points.isEmpty else { throw fail("\(keyword) after the data lines; keywords come first") }
            switch keyword {
            case "TITLE":
                title = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            case "LUT_3D_SIZE":
                guard size == nil else { throw fail("LUT_3D_SIZE given twice") }
                guard words.count == 2, let value = Int(words[1]), sizes.contains(value) else {
                    throw fail("LUT_3D_SIZE must be a whole number from 2 to 256")
                }
                size = value
            case "DOMAIN_MIN", "DOMAIN_MAX":
                guard words.count == 4, let triple = Self.numbers(words.dropFirst()) else {
                    throw fail("\(keyword) takes three numbers (R G B)")
                }
                if keyword == "DOMAIN_MIN" { domainMin = triple } else { domainMax = triple }
                domainLine = lineNumber
            case "LUT_1D_SIZE", "LUT_1D_INPUT_RANGE":
                throw fail("a 1D LUT (\(keyword)); only 3D LUTs (LUT_3D_SIZE) are supported")
            case "LUT_3D_INPUT_RANGE":
                guard words.count == 3, let pair = Self.numbers(words.dropFirst()) else {
                    throw fail("LUT_3D_INPUT_RANGE takes two numbers (min max)")
                }
                domainMin = [pair[0], pair[0], pair[0]]
                domainMax = [pair[1], pair[1], pair[1]]
                domainLine = lineNumber
            default:
                throw fail("unknown keyword \"\(keyword.prefix(40))\"")
            }
        }
        guard let size else {
            lineNumber = 0
            throw fail("no LUT_3D_SIZE line: not a 3D .cube LUT")
        }
        guard points.count == size * size * size * 3 else {
            lineNumber = lastDataLine
            throw fail("\(points.count / 3) data lines; LUT_3D_SIZE \(size) needs \(size * size * size)")
        }
        for channel in 0..<3 where !(domainMin[channel] < domainMax[channel]) {
            lineNumber = domainLine
            throw fail("DOMAIN_MIN must be below DOMAIN_MAX in every channel")
        }
        // The file lists red fastest; stored with blue fastest, as lut3d indexes it.
        var values = [Float](repeating: 0, count: points.count)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let from = ((b * size + g) * size + r) * 3
                    let to = ((r * size + g) * size + b) * 3
                    values[to] = points[from]
                    values[to + 1] = points[from + 1]
                    values[to + 2] = points[from + 2]
                }
            }
        }
        return CubeLUT(title: title, size: size, domainMin: domainMin, domainMax: domainMax, values: values)
    }

    private static func numbers<Words: Collection>(_ words: Words) -> [Float]? where Words.Element == Substring {
        let values = words.compactMap { Float($0) }
        return values.count == words.count && values.allSatisfy(\.isFinite) ? values : nil
    }
}

/// A `.cube` file that cannot be read, with the line at fault (0: the file as a whole).
public struct CubeLUTError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}
