/// A chunk attempt: the chunk's database id and the attempt number that fences its results.
public struct AttemptKey: Codable, Sendable, Hashable, CustomStringConvertible {
    public var chunk: Int64
    public var attempt: Int

    public init(chunk: Int64, attempt: Int) {
        self.chunk = chunk
        self.attempt = attempt
    }

    public var description: String { "chunk \(chunk) attempt \(attempt)" }
}
