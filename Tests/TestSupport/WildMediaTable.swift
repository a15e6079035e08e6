import Foundation

/// docs/media.md's table of the files real devices wrote ("Files users brought"): what the farm
/// does with each, read by the test that holds it to it, so the table cannot drift from the farm.
public struct WildMediaRow: Sendable {
    public enum Picture: Sendable, Equatable {
        case exact
        /// Every frame within `psnr` dB of ffmpeg's picture.
        case close(psnr: Double)
        /// Refused when the project is loaded, in one line naming the file.
        case refused
        /// A sound-only file.
        case none
    }

    public enum Sound: Sendable, Equatable {
        /// Every sample within this many levels of 32,767 of ffmpeg's.
        case samples(Int)
        /// Every 100 ms within this many dB of ffmpeg's loudness: AAC whose substituted noise
        /// decodes differently from each start (docs/media.md, "AAC with substituted noise").
        case level(Double)
        /// No sound the farm plays (none in the file, or none ffmpeg decodes).
        case none
    }

    public let file: String
    public let picture: Picture
    public let sound: Sound
    /// Compared with ffmpeg's decode resampled as it comes, not placed by
    /// `aresample=async=1` ("as decoded" in the table; `WildSource.expectedSound`).
    public let soundAsDecoded: Bool

    /// The rows of docs/media.md's "Files users brought" table, by file name.
    public static func documented() throws -> [String: WildMediaRow] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/media.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        guard let section = text.components(separatedBy: "\n## Files users brought\n").dropFirst().first else {
            throw TestError.failed("docs/media.md has no \"Files users brought\" section")
        }
        var rows: [String: WildMediaRow] = [:]
        for line in section.components(separatedBy: "\n## ")[0].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { throw TestError.failed("docs/media.md: a short row: \(line)") }
            let file = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            rows[file] = WildMediaRow(
                file: file, picture: try picture(cells[2], in: line), sound: try sound(cells[3], in: line),
                soundAsDecoded: cells[3].contains("as decoded"))
        }
        return rows
    }

    static func picture(_ cell: String, in line: Substring) throws -> Picture {
        if cell == "exact" { return .exact }
        if cell == "none" { return .none }
        if cell.hasPrefix("refused") { return .refused }
        if cell.hasPrefix("close ("), let decibels = Double(cell.dropFirst(7).prefix { $0 != " " }) {
            return .close(psnr: decibels)
        }
        throw TestError.failed("docs/media.md: no picture result in: \(line)")
    }

    static func sound(_ cell: String, in line: Substring) throws -> Sound {
        if cell.hasPrefix("none") { return .none }
        if cell.hasPrefix("±"), let level = Int(cell.dropFirst().prefix { $0.isNumber }) { return .samples(level) }
        if cell.hasPrefix("level ±"), let decibels = Double(cell.dropFirst(7).prefix { $0 != " " }) {
            return .level(decibels)
        }
        throw TestError.failed("docs/media.md: no sound result in: \(line)")
    }
}
