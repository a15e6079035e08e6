import FarmCore
import FarmWire
import Foundation

/// Sends a rendered result to the coordinator in bounded pieces, each after the coordinator
/// acknowledged the last, then `done` with the size and SHA-256; sends again whatever got no
/// answer (the coordinator may have restarted). Flamenco's output uploader.
final class Uploader {
    private let pieceBytes: Int
    /// How long an unanswered piece or `done` waits before it is sent again.
    private let patience: Duration
    private let send: (WireMessage) -> Void
    private let clock: WorkerClock
    /// With an upload limit: the earliest the next piece of any upload may go.
    private var pacing: (limit: ByteRate, nextPiece: ContinuousClock.Instant)?

    init(
        pieceBytes: Int, patience: Duration, limit: ByteRate? = nil, clock: WorkerClock,
        send: @escaping (WireMessage) -> Void
    ) {
        // Pieces of a tenth of a second's worth keep a limited upload smooth.
        self.pieceBytes = limit.map { Int(min(Double(pieceBytes), max(4096, $0.bytesPerSecond / 10))) } ?? pieceBytes
        self.patience = patience
        self.send = send
        self.clock = clock
        pacing = limit.map { ($0, clock.now) }
    }

    /// Measures and hashes a finished render once, then sends its first piece.
    func begin(_ task: WorkerTask, output: AssignmentRenderer.Output) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: output.url.path)
        let bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        task.upload = WorkerTask.Upload(output: output, bytes: bytes, sha256: try SHA256.file(output.url.path))
        try sendNext(task, from: 0)
    }

    /// The coordinator holds `received` bytes: continue from there.
    func acknowledged(_ task: WorkerTask, received: Int64) throws {
        guard case .uploading = task.phase else { return }
        try sendNext(task, from: received)
    }

    /// Sends the piece after what the coordinator holds, or `done` when it holds everything.
    private func sendNext(_ task: WorkerTask, from acked: Int64) throws {
        guard let result = task.upload else { return }
        if acked >= result.bytes {
            let phases = task.reportedPhases ?? task.phases(now: clock.now)
            task.reportedPhases = phases
            var done = ChunkDone(
                key: task.key, bytes: result.bytes, sha256: result.sha256, made: result.output.made,
                mediaBlocks: result.output.mediaBlocks,
                thumbnail: result.output.thumbnail, log: task.log.tail, blackFrames: result.output.black,
                phases: phases)
            done.stills = result.output.stills.isEmpty ? nil : result.output.stills
            send(.done(done))
            task.phase = .awaitingVerdict(sentAt: clock.now)
            return
        }
        if let pacing, clock.now < pacing.nextPiece {
            task.phase = .paced(acked: acked)
            return
        }
        let file = result.output.url
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw TransportError(message: "cannot read \(file.path)")
        }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(acked))
        let bytes = Array(try handle.read(upToCount: pieceBytes) ?? Data())
        send(.piece(UploadPiece(key: task.key, offset: acked, total: result.bytes), bytes))
        task.phase = .uploading(acked: acked, sentAt: clock.now)
        if let (limit, next) = pacing {
            pacing = (limit, max(next, clock.now) + .seconds(Double(bytes.count) / limit.bytesPerSecond))
        }
    }

    /// Sends pieces the upload limit held back once they are due, and again a piece or `done`
    /// that got no answer.
    func sendDue(_ tasks: [WorkerTask]) throws {
        for task in tasks {
            switch task.phase {
            case .paced(let acked):
                try sendNext(task, from: acked)
            case .uploading(let acked, let sentAt) where clock.now - sentAt > patience:
                try sendNext(task, from: acked)
            case .awaitingVerdict(let sentAt) where clock.now - sentAt > patience:
                // Start over: the coordinator may have lost the upload with its process.
                try sendNext(task, from: 0)
            default:
                continue
            }
        }
    }
}
