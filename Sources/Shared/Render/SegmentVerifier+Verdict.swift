import Foundation

extension SegmentVerifier {
    /// The verifier child's answer to one `Request`, a line of JSON: `{"ok":true}`, or
    /// `{"ok":false,"reason":"…"}` for a bad segment. Typed, so that a child answering anything
    /// else (a crash's half line, another program) is told apart from a verdict.
    public struct Verdict: Codable, Sendable, Equatable {
        public var ok: Bool
        /// Why the segment is bad; absent when it is good.
        public var reason: String?

        public static let good = Verdict(ok: true, reason: nil)

        public static func bad(_ reason: String) -> Verdict { Verdict(ok: false, reason: reason) }

        /// The verdict of one request line, as `serve` answers it.
        public static func of(requestLine line: String) -> Verdict {
            do {
                try JSONDecoder().decode(Request.self, from: Data(line.utf8)).check()
                return .good
            } catch {
                // One line whatever the error says, and short enough for a log line.
                let reason = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
                return .bad(String(reason.prefix(600)))
            }
        }

        /// The verdict in `line`, or nil when the line is not one.
        public init?(line: String) {
            guard let verdict = try? JSONDecoder().decode(Verdict.self, from: Data(line.utf8)),
                verdict.ok == (verdict.reason == nil)
            else { return nil }
            self = verdict
        }

        public init(ok: Bool, reason: String?) {
            self.ok = ok
            self.reason = reason
        }

        /// One line of JSON.
        public var line: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: (try? encoder.encode(self)) ?? Data(#"{"ok":false}"#.utf8), as: UTF8.self)
        }
    }
}
