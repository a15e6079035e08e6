/// A CSV file of template values (`farm batch`), as RFC 4180 writes it and spreadsheets
/// export it: a header row of field names, then one row per render; fields in double quotes
/// may hold commas, quotes (doubled) and line breaks; CRLF or LF; a UTF-8 byte-order mark is
/// skipped; blank lines are ignored.
public struct CSVRows: Sendable {
    public struct Row: Sendable {
        /// 1 for the first row after the header, as `farm batch` names rows.
        public var number: Int
        /// The line it starts on, counting the header as line 1.
        public var line: Int
        public var values: [String: String]
    }

    public var header: [String]
    public var rows: [Row]

    public struct Problem: Error, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static func parse(_ text: String) throws -> CSVRows {
        let records = try records(of: text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
        guard let first = records.first else { throw Problem(line: 1, message: "the file is empty: no header row") }
        let header = first.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        var seen: Set<String> = []
        for name in header {
            guard !name.isEmpty else { throw Problem(line: first.line, message: "a column has no name in the header") }
            guard seen.insert(name).inserted else {
                throw Problem(line: first.line, message: "the column \"\(name)\" is named twice")
            }
        }
        var rows: [Row] = []
        for record in records.dropFirst() {
            guard record.fields.count == header.count else {
                throw Problem(
                    line: record.line,
                    message: "\(record.fields.count) fields where the header names \(header.count) columns")
            }
            rows.append(
                Row(
                    number: rows.count + 1, line: record.line,
                    values: Dictionary(uniqueKeysWithValues: zip(header, record.fields))))
        }
        return CSVRows(header: header, rows: rows)
    }

    /// The records and the line each starts on; blank lines dropped.
    private static func records(of text: String) throws -> [(line: Int, fields: [String])] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var afterQuote = false
        var line = 1
        var recordLine = 1
        var scalars = Array(text.unicodeScalars)[...]
        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields = []
            field = ""
        }
        while let scalar = scalars.popFirst() {
            if quoted {
                if scalar == "\"" {
                    if scalars.first == "\"" {
                        scalars.removeFirst()
                        field.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
            case ",":
                fields.append(field)
                field = ""
                afterQuote = false
            case "\r" where scalars.first == "\n":
                continue
            case "\n", "\r":
                endRecord()
                afterQuote = false
                line += 1
                recordLine = line
            default:
                if afterQuote {
                    throw Problem(line: line, message: "text after a closing quote; a quote inside a field is doubled")
                }
                field.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw Problem(line: recordLine, message: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }
}
