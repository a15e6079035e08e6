import FarmCore
import FarmStore
import FarmWire
import Foundation
import Logging

/// The coordinator: hands chunks to workers over ZeroMQ, takes their uploads, verifies them,
/// and joins every finished job into its output file. All state lives in PostgreSQL, so a
/// restarted coordinator carries on where the last one stopped.
///
/// One thread runs the loop and owns the socket and the database connection; it routes each
/// message to the handler of its concern (`WorkerSessions`, `UploadIntake`) and runs the
/// periodic work. Verification and joins run on threads of their own.
public final class CoordinatorServer {
    public struct Configuration: Sendable {
        public var database: String
        public var bind = "tcp://*:5555"
        /// Accepted segments and uploads in progress, under `jobs/ID/`.
        public var dataDirectory: URL
        /// How long a chunk stays leased to a worker that has gone silent.
        public var leaseSeconds = 10.0
        /// Remove a job's segments once its file is written.
        public var removeSegmentsWhenDone = false

        public init(database: String, dataDirectory: URL) {
            self.database = database
            self.dataDirectory = dataDirectory
        }
    }

    public let configuration: Configuration
    /// The endpoint bound, with a `*` port resolved.
    public let endpoint: String
    private let store: FarmStore
    private let socket: MessageSocket
    private let outbox: Outbox
    private let sessions: WorkerSessions
    private let intake: UploadIntake
    private let joins: JoinScheduler
    private let logger: Logger
    private let stopFlag = StopFlag()
    private let clock = ContinuousClock()

    public init(configuration: Configuration, logger: Logger = Logger(label: "farm.coordinator")) throws {
        self.configuration = configuration
        self.logger = logger
        store = try FarmStore(url: configuration.database)
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        try DataFolderClaim.claim(configuration.dataDirectory, identity: store.identity())
        socket = try MessageSocket(.router)
        try socket.bind(configuration.bind)
        endpoint = socket.lastEndpoint
        outbox = Outbox(socket: socket, logger: logger)
        sessions = WorkerSessions(
            store: store, outbox: outbox, logger: logger, leaseSeconds: configuration.leaseSeconds)
        intake = UploadIntake(
            store: store, outbox: outbox, sessions: sessions, logger: logger, dataDirectory: configuration.dataDirectory
        )
        joins = JoinScheduler(
            store: store, logger: logger, dataDirectory: configuration.dataDirectory,
            removeSegmentsWhenDone: configuration.removeSegmentsWhenDone)
    }

    /// Asks `run()` to return; safe from any thread.
    public func stop() { stopFlag.raise() }

    /// Serves until `stop()`.
    public func run() throws {
        logger.info("coordinator listening on \(endpoint)")
        var lastTick = clock.now - .seconds(1)
        while !stopFlag.isRaised {
            if let frames = try socket.receive(timeout: 0.05) {
                route(frames)
            }
            // A verdict frees a worker's slot: hand out its next chunk at once.
            if try intake.collectVerified() { try sessions.assignChunks() }
            if clock.now - lastTick >= .milliseconds(200) {
                lastTick = clock.now
                try tick()
            }
        }
        // Verifications and joins in flight finish before returning: their output must not be
        // left half-done.
        while intake.isBusy || joins.isJoining {
            Thread.sleep(forTimeInterval: 0.05)
            try intake.collectVerified()
            try joins.finishJoins()
        }
        try sessions.markAllLost()
    }

    // MARK: Messages

    private func route(_ frames: [[UInt8]]) {
        guard frames.count >= 2 else { return }
        let route = frames[0]
        let message: WireMessage
        do {
            message = try WireMessage(frames: Array(frames.dropFirst()))
        } catch {
            logger.warning("ignoring a message: \(error)")
            return
        }
        do {
            try handle(message, from: route)
        } catch {
            logger.error("handling a message failed: \(error)")
        }
    }

    private func handle(_ message: WireMessage, from route: [UInt8]) throws {
        switch message {
        case .hello(let info):
            try sessions.hello(info, from: route)
        case .heartbeat(let beat):
            try sessions.heartbeat(beat, from: route)
        case .progress(let report):
            try store.recordProgress(report.key, frames: report.frames, fps: report.fps)
        case .piece(let piece, let bytes):
            try intake.piece(piece, bytes: bytes, from: route)
        case .done(let done):
            try intake.done(done, from: route)
        case .failed(let failure):
            sessions.release(failure.key)
            logger.warning("\(failure.key) failed: \(failure.error)")
            if let job = try store.fail(failure.key, error: failure.error) {
                logger.error("job \(job) failed: \(failure.error)")
            }
            try sessions.assignChunks()
        case .welcome, .coordinatorHeartbeat, .assign, .pieceAck, .accepted, .rejected, .cancel:
            logger.warning("ignoring a coordinator-only message from a worker")
        }
    }

    // MARK: Periodic work

    private func tick() throws {
        for key in try store.expireLeases() {
            logger.warning("lease of \(key) expired; the chunk goes back to the queue")
            sessions.release(key)
            intake.discard(key)
        }
        for (key, worker) in try store.stopAttemptsOfFinishedJobs() {
            intake.discard(key)
            sessions.release(key)
            if let route = sessions.route(of: worker) {
                outbox.send(.cancel(Verdict(key: key, reason: "job stopped")), to: route)
            }
        }
        try sessions.dropSilent()
        try sessions.assignChunks()
        try joins.startJoins()
        try joins.finishJoins()
    }
}
