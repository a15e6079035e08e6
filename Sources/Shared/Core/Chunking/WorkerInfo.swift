/// What a worker tells the coordinator about itself (in `hello` and every heartbeat).
public struct WorkerInfo: Codable, Sendable, Hashable {
    public var id: String
    public var host: String
    public var cores: Int
    public var slots: Int
    public var version: String
    /// The pools it serves (`farm-worker --tags`). Absent from workers older than 0.6.
    public var tags: [String]?
    /// What decides the bytes it encodes. Absent from workers older than 0.6.
    public var kind: RenderNodeKind?

    public init(
        id: String, host: String, cores: Int, slots: Int, version: String, tags: [String] = [],
        kind: RenderNodeKind? = nil
    ) {
        self.id = id
        self.host = host
        self.cores = cores
        self.slots = slots
        self.version = version
        self.tags = tags
        self.kind = kind
    }

    /// The kind's name and line for operators; a worker that reports none has its release.
    public var kindSignature: (signature: String, summary: String) {
        kind.map { ($0.signature, $0.summary) } ?? RenderNodeKind.unreported(version: version)
    }
}
