import FarmCore
import FarmRender
import Foundation

/// Where the coordinator keeps one job's accepted results and the uploads still arriving.
public struct JobFolder: Sendable {
    public let url: URL

    public init(dataDirectory: URL, job: Int64) {
        url = dataDirectory.appendingPathComponent("jobs").appendingPathComponent(String(job))
    }

    public var incoming: URL { url.appendingPathComponent("incoming") }

    /// The accepted file of a chunk (video) or of the job's audio task.
    public func result(kind: ChunkKind, chunk: Chunk) -> URL {
        url.appendingPathComponent(ChunkedRender.fileName(kind: kind, chunk: chunk))
    }

    /// An attempt's upload in progress; each attempt has its own file.
    public func upload(_ key: AttemptKey) -> URL {
        incoming.appendingPathComponent("chunk-\(key.chunk)-attempt-\(key.attempt).part")
    }

    public func create() throws {
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
