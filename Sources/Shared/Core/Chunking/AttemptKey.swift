/// A chunk attempt: the chunk's database id and the attempt number that fences its results.
public struct AttemptKey: Codable, Sendable, Hashable, CustomStringConvertible {
    public var chunk: Int64
    public var attempt: Int

    public init(chunk: Int64, attempt: Int) {
        self.chunk = chunk
        self.attempt = attempt
    }

    /// Only where the job and index are unknown: operators name chunks by job and index
    /// (`WorkItem.label(job:attempt:)`), and this row id is none of those.
    public var description: String { "attempt \(attempt) of chunk row #\(chunk)" }
}
