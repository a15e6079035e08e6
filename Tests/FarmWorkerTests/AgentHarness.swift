import FarmCore
import FarmWire
import FarmWorker
import Foundation
import Logging

/// A worker agent on stand-ins, its loop turned by the test: a scripted coordinator, a clock
/// moved by the agent's own waits, and renders that end where the test runs them. One
/// heartbeat a second (so three seconds of patience and of silence), progress every 0.4 s,
/// pieces of 1,000 bytes.
final class AgentHarness {
    static let endpoint = "tcp://coordinator.test:5555"

    let clock = ManualClock()
    let coordinator: ScriptedCoordinator
    let renderer: StandInRenderer
    let renders = HeldRenders()
    let agent: WorkerAgent
    /// What the agent logged, one line each, "LEVEL message".
    let logged = Locked<[String]>([])
    private let folder: URL

    init(slots: Int = 1, resultBytes: Int = 2_500) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("farm-worker-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        coordinator = ScriptedCoordinator(clock: clock)
        renderer = StandInRenderer(folder: folder, resultBytes: resultBytes)
        var configuration = WorkerAgent.Configuration(coordinator: Self.endpoint, id: "w1", scratch: folder)
        configuration.slots = slots
        configuration.pieceBytes = 1_000
        configuration.heartbeatSeconds = 1
        configuration.progressSeconds = 0.4
        agent = try WorkerAgent(
            configuration: configuration, socket: coordinator, renderer: renderer, clock: clock, threads: renders,
            logger: Logger(label: "farm.worker.test") { [logged] _ in CapturedLog(lines: logged) })
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Everything the agent sent, in order.
    var sent: [WireMessage] { coordinator.sent }

    /// What the agent sent after the first `count` messages.
    func sent(after count: Int) -> [WireMessage] { Array(sent.dropFirst(count)) }

    /// The agent says hello, and hears the coordinator's welcome.
    func start() throws {
        agent.begin()
        try receive(.welcome)
    }

    /// Delivers raw frames (a peer of another protocol) and turns the loop once.
    func receive(frames: [[UInt8]]) throws {
        coordinator.deliver(frames: frames)
        try agent.turn()
    }

    /// Delivers `message` and turns the loop once, so the agent handles it.
    func receive(_ message: WireMessage) throws {
        coordinator.deliver(message)
        try agent.turn()
    }

    /// Turns the loop until `duration` has passed on the clock (waits with nothing to receive).
    func pass(_ duration: Duration) throws {
        let end = clock.now + duration
        while clock.now < end { try agent.turn() }
    }

    /// Ends the renders started so far, and turns the loop once so the agent collects them.
    func finishRenders() throws {
        renders.runAll()
        try agent.turn()
    }

    /// Acknowledges the pieces of `key` one by one until the agent sends `done`.
    func acknowledgeUpload(of key: AttemptKey, bytes: Int64) throws {
        var received: Int64 = 0
        while received < bytes {
            received = min(bytes, received + 1_000)
            try receive(.pieceAck(UploadAck(key: key, received: received)))
        }
    }

    static func assignment(chunk: Int64, attempt: Int = 1, frames: Int64 = 30) -> Assignment {
        Assignment(
            key: AttemptKey(chunk: chunk, attempt: attempt), job: 9,
            work: .video(Chunk(index: Int(chunk), start: chunk * frames, end: (chunk + 1) * frames)),
            projectText: "{}", projectFile: "/projects/p.json", mediaRoot: "/media", mediaPins: [:])
    }
}

extension WireMessage {
    /// The attempt a message speaks of, if any.
    var attempt: AttemptKey? {
        switch self {
        case .assign(let assignment): assignment.key
        case .progress(let report): report.key
        case .piece(let piece, _): piece.key
        case .pieceAck(let ack): ack.key
        case .done(let done): done.key
        case .failed(let failure): failure.key
        case .accepted(let verdict), .rejected(let verdict), .cancel(let verdict): verdict.key
        case .hello, .welcome, .heartbeat, .coordinatorHeartbeat, .refused: nil
        }
    }

    var heartbeat: Heartbeat? {
        if case .heartbeat(let beat) = self { return beat }
        return nil
    }

    var piece: (piece: UploadPiece, bytes: [UInt8])? {
        if case .piece(let piece, let bytes) = self { return (piece, bytes) }
        return nil
    }

    var isHello: Bool {
        if case .hello = self { return true }
        return false
    }

    /// The wire's name of the message's type.
    var type: String { String(decoding: encoded()[1], as: UTF8.self) }
}

/// A log handler that keeps every line, for tests that read what the agent said.
struct CapturedLog: LogHandler {
    let lines: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        lines.withLock { $0.append("\(level) \(message)") }
    }
}
