/// Columns padded to their widest cell, numbers right-aligned: the shape of every list the CLI prints.
struct TextTable {
    let headers: [String]
    /// Indexes of columns aligned to the right.
    let numeric: Set<Int>
    private(set) var rows: [[String]] = []

    init(_ headers: [String], numeric: Set<Int> = []) {
        self.headers = headers
        self.numeric = numeric
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    var text: String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return numeric.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
