import Foundation

/// Reads SubRip (`.srt`) and WebVTT (`.vtt`) files into cues, as players do: a byte-order mark,
/// CRLF or CR line ends, `,` or `.` before the milliseconds, hours left out, cue numbers and
/// identifiers, WebVTT's header, `NOTE`, `STYLE` and `REGION` blocks and cue settings (read
/// over: a burned-in cue is placed by the project's style). The first problem stops the read
/// with its line, so the message points at the one place to fix.
public enum CaptionFileParser {
    /// The cues of `bytes`, ordered by start time. `file` names the file in messages; `format`
    /// nil sniffs it from the text.
    public static func parse(_ bytes: [UInt8], file: String, format: CaptionFormat? = nil) throws -> [CaptionCue] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw CaptionFileError(file: file, line: 0, message: "is not UTF-8 text (save it as UTF-8)")
        }
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let lines = normalized.split(separator: "\n", omittingEmptySubsequences: false)
        let kind = format ?? CaptionFormat(sniffing: lines.first ?? "")
        var cues: [CaptionCue] = []
        var index = 0
        func fail(_ line: Int, _ message: String) -> CaptionFileError {
            CaptionFileError(file: file, line: line, message: message)
        }
        if kind == .webvtt {
            guard let first = lines.first,
                first == "WEBVTT" || first.hasPrefix("WEBVTT ") || first.hasPrefix("WEBVTT\t")
            else { throw fail(1, "a WebVTT file starts with the line WEBVTT") }
            // The header runs to the first blank line.
            while index < lines.count, !isBlank(lines[index]) { index += 1 }
        }
        while index < lines.count {
            if isBlank(lines[index]) {
                index += 1
                continue
            }
            let blockStart = index
            var block: [Substring] = []
            while index < lines.count, !isBlank(lines[index]) {
                block.append(lines[index])
                index += 1
            }
            if kind == .webvtt, let head = block.first,
                ["NOTE", "STYLE", "REGION"].contains(where: { isKeyword(head, $0) })
            {
                continue
            }
            // The timing is the first line, or the second after a cue number (SubRip) or an identifier (WebVTT).
            let timingOffset: Int
            if block[0].contains("-->") {
                timingOffset = 0
            } else if block.count > 1, block[1].contains("-->"),
                kind == .webvtt || block[0].trimmingCharacters(in: .whitespaces).allSatisfy(\.isNumber)
            {
                timingOffset = 1
            } else {
                let expected =
                    kind == .srt
                    ? "a cue number or a timing line such as 00:00:01,000 --> 00:00:02,000"
                    : "a timing line such as 00:00:01.000 --> 00:00:02.000"
                throw fail(blockStart + 1, "expected \(expected), got \(quoted(block[0]))")
            }
            let lineNumber = blockStart + timingOffset + 1
            let timing = block[timingOffset]
            let parts = timing.components(separatedBy: "-->")
            guard parts.count == 2 else { throw fail(lineNumber, "expected one \"-->\" in \(quoted(timing))") }
            let startText = parts[0].trimmingCharacters(in: .whitespaces)
            // WebVTT's cue settings follow the end time after white space.
            let endText =
                parts[1].trimmingCharacters(in: .whitespaces).split(whereSeparator: \.isWhitespace).first
                .map(String.init) ?? ""
            guard let start = time(startText) else {
                throw fail(lineNumber, "cue start \(quoted(startText[...])) is not a time such as 00:01:02,500")
            }
            guard let end = time(endText) else {
                throw fail(lineNumber, "cue end \(quoted(endText[...])) is not a time such as 00:01:02,500")
            }
            if end < start {
                throw fail(lineNumber, "cue end \(endText) is before its start \(startText)")
            }
            let payload = Array(block.dropFirst(timingOffset + 1))
            let text = CaptionText.plain(payload)
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
            cues.append(CaptionCue(start: start, end: end, text: text, line: lineNumber))
        }
        guard !cues.isEmpty else { throw fail(0, "holds no cues") }
        return cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
    }

    private static func isBlank(_ line: Substring) -> Bool { line.allSatisfy(\.isWhitespace) }

    private static func isKeyword(_ line: Substring, _ keyword: String) -> Bool {
        line == keyword || line.hasPrefix(keyword + " ") || line.hasPrefix(keyword + "\t")
    }

    private static func quoted(_ text: Substring) -> String {
        "\"" + (text.count > 60 ? text.prefix(57) + "..." : text) + "\""
    }

    /// `[hh:]mm:ss[,.]fff`: hours may be left out or have any number of digits; the fraction
    /// is one to three digits, read as a decimal fraction of a second.
    static func time(_ text: String) -> Rational? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count) else { return nil }
        let last = fields[fields.count - 1]
        guard let mark = last.firstIndex(where: { $0 == "," || $0 == "." }) else { return nil }
        let secondsText = last[..<mark]
        let fraction = last[last.index(after: mark)...]
        func number(_ part: Substring, digits: ClosedRange<Int>) -> Int64? {
            guard digits.contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber) else {
                return nil
            }
            return Int64(part)
        }
        guard let seconds = number(secondsText, digits: 2...2), seconds < 60,
            let minutes = number(fields[fields.count - 2], digits: 2...2), minutes < 60,
            let fractionValue = number(fraction, digits: 1...3)
        else { return nil }
        let hours = fields.count == 3 ? number(fields[0], digits: 1...6) : 0
        guard let hours else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fraction.count { scale *= 10 }
        return Rational(hours * 3600 + minutes * 60 + seconds) + Rational(fractionValue, scale)
    }
}
