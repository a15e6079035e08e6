import FarmCore
import Foundation

/// The farm's wire protocol. A message is the frames `["farm/1", type, JSON body]`, plus one
/// raw payload frame for upload pieces. Peers speaking another version are refused by name, and
/// a message whose numbers lie outside `WireBounds` is refused as malformed.
public enum WireMessage: Sendable, Hashable {
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
    /// The coordinator will not work with this peer (another protocol version).
    case refused(Refusal)

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
        case .refused(let body): return frames("refused", body)
        }
    }

    public init(frames: [[UInt8]]) throws {
        guard frames.count >= 3 else { throw TransportError(message: "message with \(frames.count) frames") }
        let tag = String(decoding: frames[0], as: UTF8.self)
        guard tag == Self.protocolTag else { throw ProtocolMismatch(peer: String(tag.prefix(64))) }
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
        case "refused": self = .refused(try body(Refusal.self))
        default: throw TransportError(message: "unknown message type \"\(type)\"")
        }
        if let problem = outOfBounds { throw TransportError(message: "\(type): \(problem)") }
    }
}
