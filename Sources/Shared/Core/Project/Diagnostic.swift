/// One problem found in a project, tied to the JSON path (or file) it is about.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// A JSON path such as `tracks[1].items[3].source.start`, or a file name.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Every problem found in a project file; rendering never starts while there is one.
public struct ProjectError: Error, Sendable, CustomStringConvertible {
    /// The project file the diagnostics are about.
    public var file: String
    public var diagnostics: [Diagnostic]

    public init(file: String, diagnostics: [Diagnostic]) {
        self.file = file
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map { "\(file): \($0)" }.joined(separator: "\n")
    }
}

/// Collects diagnostics while a parser keeps going, so one run reports every problem (up to
/// `limit` of them; past that it counts, so a huge bad file gets a readable answer).
public final class DiagnosticLog {
    private var kept: [Diagnostic] = []
    private var dropped = 0
    static let limit = 100

    public init() {}

    public func add(_ path: String, _ message: String) {
        guard kept.count < Self.limit else {
            dropped += 1
            return
        }
        kept.append(Diagnostic(path: path, message: message))
    }

    public var diagnostics: [Diagnostic] {
        dropped == 0 ? kept : kept + [Diagnostic(path: "", message: "and \(dropped) more problems not shown")]
    }

    public var isEmpty: Bool { kept.isEmpty }

    /// What was read otherwise than written, by kind: its first case, and how many more.
    private var cautions: [(kind: String, first: Diagnostic, more: Int)] = []

    /// Records something read otherwise than written (not a problem); a file says each kind once.
    public func warnOnce(_ kind: String, _ path: String, _ message: String) {
        if let index = cautions.firstIndex(where: { $0.kind == kind }) {
            cautions[index].more += 1
        } else {
            cautions.append((kind, Diagnostic(path: path, message: message), 0))
        }
    }

    /// One line per kind of warning: the first case, and how many more there were.
    public var warnings: [Diagnostic] {
        cautions.map { caution in
            var line = caution.first
            if caution.more > 0 {
                line.message += "; so \(caution.more == 1 ? "is" : "are") \(caution.more) more in this file"
            }
            return line
        }
    }
}

/// The closest word within two edits, for "did you mean" hints.
func closestWord(to word: String, in candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var row = [i + 1]
            for (j, cb) in b.enumerated() {
                row.append(Swift.min(previous[j + 1] + 1, row[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = row
        }
        return previous[b.count]
    }
    // Typos are short: long words would make the distance slow (it is quadratic) for nothing.
    guard word.count <= 64 else { return nil }
    let lowered = Array(word.lowercased())
    let scored = candidates.filter { $0.count <= 64 }.map { ($0, distance(lowered, Array($0.lowercased()))) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
    return best.0
}

/// `text` quoted for a message: one line, at most 60 characters.
public func quotedForMessage(_ text: String) -> String { JSONField.quote(text) }
