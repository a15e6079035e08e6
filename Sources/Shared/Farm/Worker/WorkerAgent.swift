import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A render worker: connects a DEALER socket to the coordinator, renders what it is assigned
/// on its own threads (one per slot), reports progress, and uploads each result in bounded
/// pieces with a SHA-256. It never touches the database or shared writable storage.
///
/// When the coordinator goes away the worker keeps rendering; ZeroMQ reconnects it and the
/// next heartbeat tells the (possibly restarted) coordinator what it holds.
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
        /// Upload piece size: the most either side holds of one upload at a time.
        public var pieceBytes = 1 << 20

        public init(coordinator: String, id: String, scratch: URL) {
            self.coordinator = coordinator
            self.id = id
            self.scratch = scratch
        }
    }

    public let configuration: Configuration
    private let info: WorkerInfo
    private let socket: MessageSocket
    private let renderer: AssignmentRenderer
    private let logger: Logger
    private let stopFlag = StopFlag()
    private let clock = ContinuousClock()
    private var tasks: [AttemptKey: WorkerTask] = [:]
    private var lastHeard: ContinuousClock.Instant
    private var coordinatorReachable = true
    private var lastHeartbeat: ContinuousClock.Instant
    private var lastProgress: ContinuousClock.Instant

    public init(configuration: Configuration, logger: Logger = Logger(label: "farm.worker")) throws {
        self.configuration = configuration
        self.logger = logger
        let cores = ProcessInfo.processInfo.activeProcessorCount
        info = WorkerInfo(
            id: configuration.id, host: Self.hostName, cores: cores, slots: configuration.slots, version: FarmVersion.current)
        try FileManager.default.createDirectory(at: configuration.scratch, withIntermediateDirectories: true)
        renderer = AssignmentRenderer(
            mediaRoot: configuration.mediaRoot, scratch: configuration.scratch, encoderThreads: configuration.encoderThreads)
        socket = try MessageSocket(.dealer, identity: configuration.id)
        try socket.connect(configuration.coordinator)
        lastHeard = clock.now
        lastHeartbeat = clock.now
        lastProgress = clock.now
    }

    public func stop() { stopFlag.raise() }

    public func run() throws {
        logger.info("worker \(info.id) on \(info.host): \(info.slots) slot(s), connecting to \(configuration.coordinator)")
        send(.hello(info))
        while !stopFlag.isRaised {
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
                } catch {
                    logger.warning("ignoring a message: \(error)")
                }
            }
            try periodic()
        }
        for task in tasks.values { task.cancellation.raise() }
    }

    // MARK: Messages

    private func handle(_ message: WireMessage) throws {
        switch message {
        case .welcome, .coordinatorHeartbeat:
            break
        case .assign(let assignment):
            guard tasks[assignment.key] == nil else { return }
            let what = assignment.kind == .audio ? "audio" : "chunk \(assignment.index) [\(assignment.start), \(assignment.end))"
            logger.info("job \(assignment.job) \(what): attempt \(assignment.key.attempt) assigned")
            tasks[assignment.key] = WorkerTask(assignment)
        case .cancel(let verdict):
            guard let task = tasks[verdict.key] else { return }
            logger.info("\(verdict.key) cancelled: \(verdict.reason)")
            task.cancellation.raise()
            if !task.isRendering { drop(task) }
        case .pieceAck(let ack):
            guard let task = tasks[ack.key], case .uploading = task.phase else { return }
            task.phase = .uploading(acked: ack.received, sentAt: clock.now)
            try sendNext(task)
        case .accepted(let verdict):
            guard let task = tasks[verdict.key] else { return }
            logger.info("\(verdict.key) accepted")
            drop(task)
        case .rejected(let verdict):
            guard let task = tasks[verdict.key] else { return }
            logger.warning("\(verdict.key) rejected: \(verdict.reason)")
            drop(task)
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
        startRenders()
        if now - lastProgress >= .seconds(configuration.progressSeconds) {
            lastProgress = now
            for task in tasks.values where task.isRendering {
                let (frames, fps) = task.progress.current
                send(.progress(ProgressReport(key: task.key, frames: frames, fps: fps)))
            }
        }
        if now - lastHeartbeat >= .seconds(configuration.heartbeatSeconds) {
            lastHeartbeat = now
            send(.heartbeat(Heartbeat(worker: info, running: Array(tasks.keys), waiting: tasks.values.filter(\.isQueued).map(\.key))))
        }
        try resendStalled()
    }

    /// A task that ends makes the next loop send a heartbeat, so the farm sees what this worker
    /// holds (idle, after a cancel) at once rather than up to a heartbeat later.
    private func heartbeatSoon() {
        lastHeartbeat = clock.now - .seconds(configuration.heartbeatSeconds)
    }

    private func startRenders() {
        let busy = tasks.values.filter(\.isRendering).count
        let waiting = tasks.values.filter(\.isQueued).sorted { $0.key.chunk < $1.key.chunk }
        for task in waiting.prefix(max(0, configuration.slots - busy)) {
            task.phase = .rendering
            let renderer = self.renderer
            let thread = Thread {
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    let output = try renderer.render(task.assignment, cancellation: task.cancellation) { progress in
                        let seconds = (clock.now - started) / .seconds(1)
                        task.progress.withLock { $0 = (progress.framesDone, Double(progress.framesDone) / max(seconds, 0.001)) }
                    }
                    task.outcome.withLock { $0 = .success(output) }
                } catch {
                    task.outcome.withLock { $0 = .failure(RenderFailure(text: "\(error)")) }
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Finished renders start uploading; failed ones are reported.
    private func collectRenders() throws {
        for task in tasks.values where task.isRendering {
            guard let outcome = task.outcome.current else { continue }
            switch outcome {
            case .success(let output):
                let bytes = (try FileManager.default.attributesOfItem(atPath: output.url.path)[.size] as? NSNumber)?.int64Value ?? 0
                task.upload = WorkerTask.Upload(output: output, bytes: bytes, sha256: try SHA256.file(output.url.path))
                logger.info("\(task.key) rendered: \(output.frames) frames at \(String(format: "%.1f", output.fps)) fps; uploading")
                task.phase = .uploading(acked: 0, sentAt: clock.now)
                try sendNext(task)
            case .failure(let failure):
                if task.cancellation.isRaised {
                    drop(task)
                } else {
                    logger.error("\(task.key) failed: \(failure.text)")
                    send(.failed(ChunkFailed(key: task.key, error: failure.text)))
                    drop(task)
                }
            }
        }
    }

    /// Sends the piece after what the coordinator holds, or `done` when it holds everything.
    private func sendNext(_ task: WorkerTask) throws {
        guard case .uploading(let acked, _) = task.phase, let result = task.upload else { return }
        if acked >= result.bytes {
            send(
                .done(
                    ChunkDone(
                        key: task.key, bytes: result.bytes, sha256: result.sha256, frames: result.output.frames,
                        fps: result.output.fps)))
            task.phase = .awaitingVerdict(sentAt: clock.now)
            return
        }
        let file = result.output.url
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw TransportError(message: "cannot read \(file.path)")
        }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(acked))
        let bytes = Array(try handle.read(upToCount: configuration.pieceBytes) ?? Data())
        send(.piece(UploadPiece(key: task.key, offset: acked, total: result.bytes), bytes))
        task.phase = .uploading(acked: acked, sentAt: clock.now)
    }

    /// A piece or `done` that got no answer (the coordinator restarted) is sent again.
    private func resendStalled() throws {
        let patience = Duration.seconds(3 * configuration.heartbeatSeconds)
        for task in tasks.values {
            switch task.phase {
            case .uploading(_, let sentAt) where clock.now - sentAt > patience:
                try sendNext(task)
            case .awaitingVerdict(let sentAt) where clock.now - sentAt > patience:
                // Start over: the coordinator may have lost the upload with its process.
                task.phase = .uploading(acked: 0, sentAt: clock.now)
                try sendNext(task)
            default:
                continue
            }
        }
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
