/// What a worker tells the coordinator about itself (in `hello` and every heartbeat).
public struct WorkerInfo: Codable, Sendable, Hashable {
    public var id: String
    public var host: String
    public var cores: Int
    public var slots: Int
    public var version: String

    public init(id: String, host: String, cores: Int, slots: Int, version: String) {
        self.id = id
        self.host = host
        self.cores = cores
        self.slots = slots
        self.version = version
    }
}
