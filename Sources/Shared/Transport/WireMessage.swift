import Foundation

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

/// Everything a worker needs to render one chunk, with no access to the database.
public struct Assignment: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case video
        case audio
    }

    public var key: AttemptKey
    public var job: Int64
    public var kind: Kind
    public var index: Int
    public var start: Int64
    public var end: Int64
    /// The project document exactly as submitted.
    public var projectText: String
    public var projectFile: String
    /// Where the submitter's relative asset paths pointed; a worker's `--media-root` overrides it.
    public var mediaRoot: String

    public var chunk: Chunk { Chunk(index: index, start: start, end: end) }
}

public struct Heartbeat: Codable, Sendable {
    public var worker: WorkerInfo
    /// Attempts the worker holds: rendering, uploading or waiting to start.
    public var running: [AttemptKey]
    /// Those of `running` not started yet; a draining worker gives them back. Absent from
    /// workers older than 0.4.
    public var waiting: [AttemptKey]?
}

public struct ProgressReport: Codable, Sendable {
    public var key: AttemptKey
    public var frames: Int64
    public var fps: Double
}

/// One bounded piece of an encoded result; its bytes travel in the message's payload frame.
public struct UploadPiece: Codable, Sendable {
    public var key: AttemptKey
    public var offset: Int64
    public var total: Int64

    public init(key: AttemptKey, offset: Int64, total: Int64) {
        self.key = key
        self.offset = offset
        self.total = total
    }
}

public struct UploadAck: Codable, Sendable {
    public var key: AttemptKey
    /// Bytes the coordinator holds; the worker continues from here.
    public var received: Int64
}

public struct ChunkDone: Codable, Sendable {
    public var key: AttemptKey
    public var bytes: Int64
    /// Hex SHA-256 of the whole file.
    public var sha256: String
    public var frames: Int64
    public var fps: Double

    public init(key: AttemptKey, bytes: Int64, sha256: String, frames: Int64, fps: Double) {
        self.key = key
        self.bytes = bytes
        self.sha256 = sha256
        self.frames = frames
        self.fps = fps
    }
}

public struct ChunkFailed: Codable, Sendable {
    public var key: AttemptKey
    public var error: String
}

public struct Verdict: Codable, Sendable {
    public var key: AttemptKey
    public var reason: String

    /// The fence's answer to an attempt that is no longer the chunk's current one.
    static func stale(_ key: AttemptKey) -> Verdict {
        Verdict(key: key, reason: "attempt \(key.attempt) is no longer current")
    }
}

/// The farm's wire protocol. A message is the frames `["farm/1", type, JSON body]`, plus one
/// raw payload frame for upload pieces. Peers speaking another version are refused by name.
public enum WireMessage: Sendable {
    case hello(WorkerInfo)
    case welcome
    case heartbeat(Heartbeat)
    case coordinatorHeartbeat
    case assign(Assignment)
    case progress(ProgressReport)
    case piece(UploadPiece, [UInt8])
    case pieceAck(UploadAck)
    case done(ChunkDone)
    case failed(ChunkFailed)
    case accepted(Verdict)
    case rejected(Verdict)
    case cancel(Verdict)

    public static let protocolTag = "farm/1"

    public func encoded() -> [[UInt8]] {
        let encoder = JSONEncoder()
        func frames(_ type: String, _ body: some Encodable, payload: [UInt8]? = nil) -> [[UInt8]] {
            // Encoding these plain structs cannot fail.
            let json = (try? encoder.encode(body)).map { Array($0) } ?? Array("{}".utf8)
            return [Array(Self.protocolTag.utf8), Array(type.utf8), json] + (payload.map { [$0] } ?? [])
        }
        struct Empty: Codable {}
        switch self {
        case .hello(let body): return frames("hello", body)
        case .welcome: return frames("welcome", Empty())
        case .heartbeat(let body): return frames("heartbeat", body)
        case .coordinatorHeartbeat: return frames("coordinator-heartbeat", Empty())
        case .assign(let body): return frames("assign", body)
        case .progress(let body): return frames("progress", body)
        case .piece(let body, let bytes): return frames("piece", body, payload: bytes)
        case .pieceAck(let body): return frames("piece-ack", body)
        case .done(let body): return frames("done", body)
        case .failed(let body): return frames("failed", body)
        case .accepted(let body): return frames("accepted", body)
        case .rejected(let body): return frames("rejected", body)
        case .cancel(let body): return frames("cancel", body)
        }
    }

    public init(frames: [[UInt8]]) throws {
        guard frames.count >= 3 else { throw TransportError(message: "message with \(frames.count) frames") }
        let tag = String(decoding: frames[0], as: UTF8.self)
        guard tag == Self.protocolTag else {
            throw TransportError(message: "peer speaks \"\(tag)\", this farm speaks \"\(Self.protocolTag)\"")
        }
        let type = String(decoding: frames[1], as: UTF8.self)
        let decoder = JSONDecoder()
        func body<T: Decodable>(_: T.Type) throws -> T { try decoder.decode(T.self, from: Data(frames[2])) }
        switch type {
        case "hello": self = .hello(try body(WorkerInfo.self))
        case "welcome": self = .welcome
        case "heartbeat": self = .heartbeat(try body(Heartbeat.self))
        case "coordinator-heartbeat": self = .coordinatorHeartbeat
        case "assign": self = .assign(try body(Assignment.self))
        case "progress": self = .progress(try body(ProgressReport.self))
        case "piece":
            guard frames.count == 4 else { throw TransportError(message: "piece without payload") }
            self = .piece(try body(UploadPiece.self), frames[3])
        case "piece-ack": self = .pieceAck(try body(UploadAck.self))
        case "done": self = .done(try body(ChunkDone.self))
        case "failed": self = .failed(try body(ChunkFailed.self))
        case "accepted": self = .accepted(try body(Verdict.self))
        case "rejected": self = .rejected(try body(Verdict.self))
        case "cancel": self = .cancel(try body(Verdict.self))
        default: throw TransportError(message: "unknown message type \"\(type)\"")
        }
    }
}
