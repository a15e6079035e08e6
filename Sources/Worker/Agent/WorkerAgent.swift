import FarmCore
import FarmRender
import FarmWire
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A render worker: connects a DEALER socket to the coordinator, renders what it is assigned
/// in its render slots (a thread per render, at most `slots` at once), reports progress, and
/// uploads each result in bounded pieces with a SHA-256 (`Uploader`). It never touches the
/// database or shared writable storage.
///
/// When the coordinator goes away the worker keeps rendering; ZeroMQ reconnects it and the
/// next heartbeat tells the (possibly restarted) coordinator what it holds.
///
/// Its socket, renderer, clock and render threads are protocols (`CoordinatorLink`,
/// `ChunkRendering`, `WorkerClock`, `RenderThreads`), so unit tests turn its loop by hand.
public final class WorkerAgent {
    public struct Configuration: Sendable {
        public var coordinator: String
        public var id: String
        public var slots = 1
        public var encoderThreads = 1
        public var mediaRoot: URL?
        /// Where segments are rendered before upload.
        public var scratch: URL
        public var heartbeatSeconds = 1.0
        public var progressSeconds = 0.4
        /// This worker's CURVE key pair and the coordinator's public key; nil connects without.
        public var keys: (own: CurveKeys, coordinator: String)?
        /// Upload piece size: the most either side holds of one upload at a time.
        public var pieceBytes = 1 << 20
        /// The most bytes per second this worker's uploads send, all together; nil: no limit.
        public var uploadLimit: ByteRate?
        /// The pools this worker serves (`PoolTags`).
        public var tags: [String] = []
        /// What decides the bytes it encodes; set by `farm-worker` (`RenderNodeKind.current`).
        public var kind: RenderNodeKind?

        public init(coordinator: String, id: String, scratch: URL) {
            self.coordinator = coordinator
            self.id = id
            self.scratch = scratch
        }
    }

    public let configuration: Configuration
    private let info: WorkerInfo
    private let socket: CoordinatorLink
    private let renderer: ChunkRendering
    private let renderSlots: RenderSlots
    private var uploader: Uploader!
    private let logger: Logger
    private let stopFlag = StopFlag()
    /// Ends the loop's wait for messages when a render returns or `stop()` is called; nil
    /// under a unit test's stand-in socket.
    private let wakeup: LoopWakeup?
    private let clock: WorkerClock
    private var tasks: [AttemptKey: WorkerTask] = [:]
    private var lastHeard: ContinuousClock.Instant
    private var coordinatorReachable = true
    /// Said once: a coordinator of another protocol version keeps sending.
    private var toldMismatch = false
    private var lastHeartbeat: ContinuousClock.Instant
    private var lastProgress: ContinuousClock.Instant

    public convenience init(configuration: Configuration, logger: Logger = Logger(label: "farm.worker")) throws {
        try FileManager.default.createDirectory(at: configuration.scratch, withIntermediateDirectories: true)
        let socket = try MessageSocket(.dealer)
        let wakeup = try LoopWakeup()
        socket.wakeup = wakeup
        if let keys = configuration.keys { try socket.useCurve(keys.own, server: keys.coordinator) }
        let renderer = AssignmentRenderer(
            mediaRoot: configuration.mediaRoot, scratch: configuration.scratch,
            encoderThreads: configuration.encoderThreads)
        try self.init(
            configuration: configuration, socket: socket, renderer: renderer, clock: ContinuousClock(),
            threads: OwnThreads(wakeup: wakeup), logger: logger, wakeup: wakeup)
    }

    /// The agent on its seams: a farm's worker gets the DEALER socket, the compositor, the
    /// continuous clock and a thread per render; unit tests give it stand-ins for all four.
    package init(
        configuration: Configuration, socket: CoordinatorLink, renderer: ChunkRendering, clock: WorkerClock,
        threads: RenderThreads, logger: Logger, wakeup: LoopWakeup? = nil
    ) throws {
        self.configuration = configuration
        self.wakeup = wakeup
        self.logger = logger
        self.socket = socket
        self.renderer = renderer
        self.clock = clock
        let cores = ProcessInfo.processInfo.activeProcessorCount
        info = WorkerInfo(
            id: configuration.id, host: Self.hostName, cores: cores, slots: configuration.slots,
            version: FarmVersion.current, tags: configuration.tags, kind: configuration.kind)
        renderSlots = RenderSlots(slots: configuration.slots, renderer: renderer, clock: clock, threads: threads)
        try socket.connect(configuration.coordinator)
        lastHeard = clock.now
        lastHeartbeat = clock.now
        lastProgress = clock.now
        uploader = Uploader(
            pieceBytes: configuration.pieceBytes, patience: .seconds(3 * configuration.heartbeatSeconds),
            limit: configuration.uploadLimit, clock: clock
        ) { [unowned self] message in self.send(message) }
    }

    public func stop() {
        stopFlag.raise()
        wakeup?.wake()
    }

    public func run() throws {
        begin()
        while !stopFlag.isRaised { try turn() }
        for task in tasks.values { task.cancellation.raise() }
    }

    /// Says hello: the coordinator learns of this worker before anything else.
    package func begin() {
        let tags = info.tags.map { $0.isEmpty ? "" : ", tags \($0.joined(separator: ","))" } ?? ""
        logger.info(
            """
            worker \(info.id) on \(info.host): \(info.slots) slot(s)\(tags), \(info.kindSignature.summary) \
            (kind \(info.kindSignature.signature)), connecting to \(configuration.coordinator)
            """)
        send(.hello(info))
    }

    /// One turn of the loop: a message if one comes in time, then the periodic work.
    package func turn() throws {
        // A render may finish any moment: look often while one runs, so its upload starts at once.
        let rendering = tasks.values.contains { $0.isRendering }
        if let frames = try socket.receive(timeout: rendering ? 0.005 : 0.05) {
            lastHeard = clock.now
            if !coordinatorReachable {
                coordinatorReachable = true
                logger.info("coordinator reachable again")
                send(.hello(info))
            }
            do {
                try handle(WireMessage(frames: frames))
            } catch let mismatch as ProtocolMismatch {
                // A coordinator of another version: it refuses this worker, and says so in its log.
                if !toldMismatch {
                    logger.error("the coordinator cannot work with this worker: \(mismatch) (farm-worker --version)")
                    toldMismatch = true
                }
            } catch {
                logger.warning("ignoring a message: \(error)")
            }
        }
        try periodic()
    }

    // MARK: Messages

    private func handle(_ message: WireMessage) throws {
        switch message {
        case .welcome, .coordinatorHeartbeat:
            break
        case .assign(let assignment):
            guard tasks[assignment.key] == nil else { return }
            let span =
                switch assignment.work {
                case .video(let chunk): "frames \(chunk.start)..<\(chunk.end)"
                case .audio(let block): "samples \(block.start)..<\(block.end)"
                case .loudness(let block): "samples \(block.start)..<\(block.end), measuring"
                }
            let task = WorkerTask(assignment, received: clock.now)
            tasks[assignment.key] = task
            note(task, .info, "assigned (\(span)) to \(info.id) on \(info.host), \(info.kindSignature.summary)")
        case .cancel(let verdict):
            guard let task = tasks[verdict.key] else { return }
            note(task, .info, "cancelled: \(verdict.reason)")
            task.cancellation.raise()
            if !task.isRendering { drop(task) }
        case .pieceAck(let ack):
            guard let task = tasks[ack.key] else { return }
            try uploader.acknowledged(task, received: ack.received)
        case .accepted(let verdict):
            guard let task = tasks[verdict.key] else { return }
            note(task, .info, "accepted")
            drop(task)
        case .rejected(let verdict):
            guard let task = tasks[verdict.key] else { return }
            note(task, .warning, "rejected: \(verdict.reason)")
            drop(task)
        case .refused(let refusal):
            logger.error("the coordinator refused this worker: \(refusal.reason)")
        case .hello, .heartbeat, .progress, .piece, .done, .failed:
            logger.warning("ignoring a worker-only message")
        }
    }

    private func drop(_ task: WorkerTask) {
        tasks[task.key] = nil
        renderer.discard(task.key)
        heartbeatSoon()
    }

    // MARK: Periodic work

    private func periodic() throws {
        let now = clock.now
        if coordinatorReachable, now - lastHeard > .seconds(3 * configuration.heartbeatSeconds) {
            coordinatorReachable = false
            logger.warning("coordinator unreachable; carrying on and reconnecting")
        }
        try collectRenders()
        renderSlots.start(from: Array(tasks.values))
        if now - lastProgress >= .seconds(configuration.progressSeconds) {
            lastProgress = now
            // Progress counts frames: an audio block has none to report until it is done.
            for task in tasks.values where task.isRendering && task.assignment.work.kind == .video {
                let frames = task.framesDone.current
                let since = task.renderStarted.map { (now - $0) / .seconds(1) } ?? 0
                // From the render's start, so its first report has a speed to show.
                if task.speed.isEmpty { task.speed.note(0, at: 0) }
                task.speed.note(frames, at: since)
                send(.progress(ProgressReport(key: task.key, frames: frames, fps: task.speed.rate)))
            }
        }
        if now - lastHeartbeat >= .seconds(configuration.heartbeatSeconds) {
            lastHeartbeat = now
            send(
                .heartbeat(
                    Heartbeat(
                        worker: info, running: Array(tasks.keys), waiting: tasks.values.filter(\.isQueued).map(\.key),
                        uploading: tasks.values.filter(\.isUploading).map(\.key))))
        }
        try uploader.sendDue(Array(tasks.values))
    }

    /// A task that ends makes the next loop send a heartbeat, so the farm sees what this worker
    /// holds (idle, after a cancel) at once rather than up to a heartbeat later.
    private func heartbeatSoon() {
        lastHeartbeat = clock.now - .seconds(configuration.heartbeatSeconds)
    }

    /// Finished renders start uploading; failed ones are reported.
    private func collectRenders() throws {
        for task in tasks.values where task.isRendering {
            guard let outcome = task.outcome.current else { continue }
            task.renderEnded = clock.now
            switch outcome {
            case .success(let output):
                note(
                    task, .info,
                    """
                    rendered: \(output.made.description(sampleRate: output.sampleRate)); \
                    read \(output.mediaCost.blocks) blocks (\(output.mediaCost.blockBytes) bytes) of pinned media \
                    for \(output.mediaCost.demuxedBytes) bytes demuxed, \(output.mediaCost.jumps) seeks; uploading
                    """
                )
                try uploader.begin(task, output: output)
            case .failure(let failure):
                if task.cancellation.isRaised {
                    drop(task)
                } else {
                    note(task, .error, "failed: \(failure.text)")
                    send(
                        .failed(
                            ChunkFailed(
                                key: task.key, error: failure.text, fatal: failure.fatal, log: task.log.tail,
                                copies: failure.copies)))
                    drop(task)
                }
            }
        }
    }

    /// Logs a line about an attempt, named as every tool names it, into the worker's log and
    /// the attempt's own (which travels with its result).
    private func note(_ task: WorkerTask, _ level: Logger.Level, _ message: String) {
        logger.log(level: level, "\(task.label) \(message)")
        task.log.append(message, level: level.rawValue)
    }

    private func send(_ message: WireMessage) {
        do {
            try socket.send(message.encoded())
        } catch {
            logger.error("send failed: \(error)")
        }
    }

    /// This machine's name, as workers report it and name themselves by default.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count)
        return String(cString: buffer)
    }
}
