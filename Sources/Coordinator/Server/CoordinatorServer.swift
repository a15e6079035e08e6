import FarmCore
import FarmPostgres
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
        /// Remove finished jobs' segments this many seconds after they end (`--keep-segments`);
        /// nil keeps them until `farm prune`.
        public var keepSegmentsSeconds: Double?
        /// The most bytes the segment cache keeps (`--cache-size`); the least recently used
        /// segments go first.
        public var cacheBytes: Int64 = 20_000_000_000
        /// Where job notifications may go (`--notify-allow`).
        public var notifyTargets = NotifyTargets()
        /// The coordinator's CURVE key pair and the folder of workers' public keys it admits;
        /// nil serves without encryption or authentication.
        public var keys: (own: CurveKeys, allowedWorkers: URL)?
        /// Outputs are written only below this folder (nil: anywhere, as `farm render` does).
        public var outputRoot: OutputRoot?
        /// When another coordinator leads the database: wait for it to stop (a standby), or
        /// refuse to start (a private farm for one render).
        public var waitsForLeadership = true
        /// The `farm` executable, run as `PROGRAM verify-segments` to check each upload in a
        /// process of its own.
        public var verifier = Subprocess.currentExecutable

        public init(database: String, dataDirectory: URL) {
            self.database = database
            self.dataDirectory = dataDirectory
        }
    }

    public let configuration: Configuration
    /// The endpoint bound, with a `*` port resolved.
    public let endpoint: String
    private let store: FarmStore
    private let socket: any RouterSocket
    private let keyGate: KeyGate?
    private let outbox: Outbox
    private let sessions: WorkerSessions
    private let intake: UploadIntake
    private let loudness: LoudnessSettler
    private let joins: JoinScheduler
    private let premeasures: SoundPremeasures
    /// Numbered frames written as their chunks are accepted.
    private let frames: FrameStaging
    private let retention: SegmentRetention
    private let progress: ProgressWriter
    private let notifier: JobNotifier
    private let logger: Logger
    private let stopFlag = StopFlag()
    /// Ends the loop's wait for messages when a verdict, a join's end or `stop()` needs it
    /// (the socket polls it: `MessageSocket.wakeup`); nil on a test's scripted socket.
    private let wakeup: LoopWakeup?
    private let clock = ContinuousClock()
    /// Messages handled before the loop claims for the slots they freed and does its periodic
    /// work: enough to batch a busy farm's claims, few enough that a tick is never late.
    private static let messagesPerBatch = 256
    private var ticks = 0
    /// When this coordinator last recorded that it serves (`farm status` warns after a silence).
    private var lastServingRecord = ContinuousClock.now - .seconds(3600)
    /// Connections refused for another protocol version, each logged once.
    private var refusedRoutes: Set<[UInt8]> = []

    public convenience init(configuration: Configuration, logger: Logger = Logger(label: "farm.coordinator")) throws {
        let store = try FarmStore.connectWhenUp(url: configuration.database) { [logger] error in
            logger.warning("waiting for the database: \(error)")
        }
        let socket = try MessageSocket(.router)
        var keyGate: KeyGate?
        if let keys = configuration.keys {
            // The gate first: a CURVE socket bound without one would let any key in.
            keyGate = try KeyGate(allowedKeys: keys.allowedWorkers) { [logger] refusal in logger.warning("\(refusal)") }
            try socket.serveCurve(keys.own)
        }
        try socket.bind(configuration.bind)
        let wakeup = try LoopWakeup()
        socket.wakeup = wakeup
        try self.init(
            configuration: configuration, logger: logger, store: store, socket: socket, endpoint: socket.lastEndpoint,
            keyGate: keyGate, wakeup: wakeup)
    }

    /// A coordinator on a given store and socket: `farm serve`'s, or a test's scripted workers.
    package init(
        configuration: Configuration, logger: Logger, store: FarmStore, socket: any RouterSocket, endpoint: String,
        keyGate: KeyGate?, wakeup: LoopWakeup? = nil
    ) throws {
        self.configuration = configuration
        self.wakeup = wakeup
        self.logger = logger
        self.store = store
        self.socket = socket
        self.endpoint = endpoint
        self.keyGate = keyGate
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        try DataFolderClaim.claim(configuration.dataDirectory, identity: store.identity())
        outbox = Outbox(socket: socket, logger: logger)
        progress = ProgressWriter(database: configuration.database, logger: logger)
        sessions = WorkerSessions(
            store: store, outbox: outbox, logger: logger, leaseSeconds: configuration.leaseSeconds,
            progress: progress)
        frames = FrameStaging(
            store: store, logger: logger, dataDirectory: configuration.dataDirectory,
            outputRoot: configuration.outputRoot)
        intake = UploadIntake(
            store: store, outbox: outbox, sessions: sessions, logger: logger,
            dataDirectory: configuration.dataDirectory,
            check: SegmentCheck(program: configuration.verifier), frames: frames, wakeup: wakeup)
        loudness = LoudnessSettler(store: store, logger: logger, dataDirectory: configuration.dataDirectory)
        premeasures = SoundPremeasures(store: store, logger: logger, dataDirectory: configuration.dataDirectory)
        joins = JoinScheduler(
            store: store, logger: logger, dataDirectory: configuration.dataDirectory,
            removeSegmentsWhenDone: configuration.removeSegmentsWhenDone, outputRoot: configuration.outputRoot,
            keepsMeasures: configuration.cacheBytes > 0, premeasures: premeasures, frames: frames, wakeup: wakeup)
        retention = SegmentRetention(
            database: configuration.database, logger: logger, dataDirectory: configuration.dataDirectory,
            keepSeconds: configuration.keepSegmentsSeconds, cacheBytes: configuration.cacheBytes)
        notifier = JobNotifier(database: configuration.database, targets: configuration.notifyTargets, logger: logger)
    }

    /// Asks `run()` to return; safe from any thread.
    public func stop() {
        stopFlag.raise()
        wakeup?.wake()
    }

    /// Serves until `stop()`. A lost database connection is waited out, not fatal: workers
    /// keep rendering meanwhile, and their leases start afresh once it is back.
    public func run() throws {
        try lead()
        guard !stopFlag.isRaised else { return }
        logger.info("coordinator listening on \(endpoint)")
        var lastTick = clock.now - .seconds(1)
        while !stopFlag.isRaised {
            do {
                try serve(lastTick: &lastTick)
            } catch let error as PostgresError where error.isConnectionLost {
                try awaitDatabase(error)
            }
        }
        // Verifications and joins in flight finish before returning: their output must not be
        // left half-done.
        while intake.isBusy || joins.isJoining {
            Thread.sleep(forTimeInterval: 0.05)
            try intake.collectVerified()
            try joins.finishJoins()
        }
        retention.finish()
        progress.finish()
        // A job that just ended is told of now, not by the next coordinator.
        notifier.poke()
        notifier.finish()
        try sessions.markAllLost()
        // No coordinator, no warning about its data folder: the next one finds out for itself.
        try? intake.dataFolder.reset()
        // Operators see "no coordinator since …" from now, not once its record has aged.
        try? store.recordCoordinatorStopped()
        keyGate?.stop()
    }

    package func serve(lastTick: inout ContinuousClock.Instant) throws {
        // Whatever is waiting, up to a bound, then one claim for every slot those messages
        // freed: a busy farm's assignments cost a round trip per batch, not per message.
        var timeout = 0.05
        for _ in 0..<Self.messagesPerBatch {
            guard let frames = try socket.receive(timeout: timeout) else { break }
            try route(frames, sender: socket.lastSender)
            timeout = 0
        }
        // A verdict frees a worker's slot: hand out its next chunk at once. A job's last
        // acceptance starts its join, and a join's end is recorded, without waiting for a tick.
        let accepted = try intake.collectVerified()
        try sessions.assignIfPending()
        if !accepted.isEmpty {
            // A job's last loudness block lets its audio blocks go: claimed at the next batch.
            try loudness.settle(accepted)
            try joins.startJoins(of: accepted)
            // After the joins: a job that is joining measures its sound there.
            try premeasures.start(accepted)
        }
        if joins.hasFinished { try joins.finishJoins() }
        if clock.now - lastTick >= .milliseconds(200) {
            lastTick = clock.now
            try tick()
        }
    }

    // MARK: Leadership and the database

    /// Takes the database's lead (one coordinator per farm database: two would re-queue each
    /// other's work), then gives every running attempt a lease from now: chunks rendered or
    /// uploading while no coordinator listened are accepted, not thrown away.
    package func lead() throws {
        var announced = false
        while try !store.tryLead() {
            guard configuration.waitsForLeadership else {
                throw CoordinatorError(
                    "another coordinator is serving this farm database; submit the job to it with `farm submit`")
            }
            if !announced {
                logger.warning("another coordinator leads this farm database; standing by until it stops")
                announced = true
            }
            if stopFlag.isRaised { return }
            Thread.sleep(forTimeInterval: 1)
        }
        if announced { logger.info("leading this farm database now") }
        try store.setOutputRoot(configuration.outputRoot)
        try intake.dataFolder.reset()
        try store.graceRunningLeases(leaseSeconds: configuration.leaseSeconds)
        try store.forgetCachedSegments(outside: SegmentCache(dataDirectory: configuration.dataDirectory).identity())
        try store.recordCoordinatorServing()
        // Loudness blocks accepted by a coordinator that stopped before it combined them.
        try loudness.settle()
    }

    /// Reconnects with backoff until the database answers again, then leads again.
    private func awaitDatabase(_ error: PostgresError) throws {
        logger.error("\(error); reconnecting")
        let lost = clock.now
        var backoff = Backoff()
        while !stopFlag.isRaised {
            backoff.pause()
            do {
                try store.reconnect()
                let seconds = String(format: "%.1f", (clock.now - lost) / .seconds(1))
                logger.info("the database is back after \(seconds) s")
                sessions.forgiveSilence()
                try lead()
                try sessions.resendLostClaims()
                return
            } catch let failure as PostgresError where failure.isConnectionLost {
                continue
            }
        }
    }

    // MARK: Messages

    /// `sender` is the name of the key the message came with, on a farm with keys.
    private func route(_ frames: [[UInt8]], sender: String?) throws {
        guard frames.count >= 2 else { return }
        let route = frames[0]
        let message: WireMessage
        do {
            message = try WireMessage(frames: Array(frames.dropFirst()))
        } catch let mismatch as ProtocolMismatch {
            refuse(route, mismatch)
            return
        } catch {
            logger.warning("ignoring a message: \(error)")
            return
        }
        if keyGate != nil, let problem = Self.impersonation(message, sender: sender) {
            logger.warning("dropped a message: \(problem)")
            return
        }
        do {
            try handle(message, from: route)
        } catch let error as PostgresError where error.isConnectionLost {
            // The worker repeats what matters (heartbeats, stalled pieces) once it is back.
            throw error
        } catch {
            logger.error("handling a message failed: \(error)")
        }
    }

    /// Answers a peer of another protocol version with `refused`, and logs it once per
    /// connection (it repeats its hello and heartbeats until it is stopped or upgraded).
    private func refuse(_ route: [UInt8], _ mismatch: ProtocolMismatch) {
        if refusedRoutes.count > 1024 { refusedRoutes.removeAll() }
        guard refusedRoutes.insert(route).inserted else { return }
        let reason =
            "\(mismatch); upgrade the worker or the coordinator so both speak one version (farm --version)"
        logger.error("refused \(sessions.name(of: route)): \(reason)")
        outbox.send(.refused(Refusal(reason: reason)), to: route)
    }

    private func handle(_ message: WireMessage, from route: [UInt8]) throws {
        switch message {
        case .hello(let info):
            try sessions.hello(info, from: route)
        case .heartbeat(let beat):
            try sessions.heartbeat(beat, from: route)
        case .progress(let report):
            guard let worker = holder(of: report.key, route: route, saying: "progress") else { return }
            sessions.progress(report, worker: worker)
        case .piece(let piece, let bytes):
            try intake.piece(piece, bytes: bytes, from: route)
        case .done(let done):
            try intake.done(done, from: route)
        case .failed(let failure):
            guard let worker = holder(of: failure.key, route: route, saying: "failed") else { return }
            try intake.failed(failure, worker: worker, route: route)
        case .welcome, .coordinatorHeartbeat, .assign, .pieceAck, .accepted, .rejected, .cancel, .refused:
            logger.warning("ignoring a coordinator-only message from a worker")
        }
    }

    /// The worker speaking on `route`, if it holds `key`: only the worker an attempt was
    /// assigned to may report on it. The store checks again against the attempt's worker, so a
    /// session and the database never disagree in the sender's favour.
    private func holder(of key: AttemptKey, route: [UInt8], saying what: String) -> String? {
        guard let worker = sessions.worker(at: route), sessions.holds(key, route: route) else {
            logger.warning(
                "dropped \(what) for \(sessions.label(key)) from \(sessions.name(of: route)), which does not hold it")
            return nil
        }
        return worker
    }

    /// On a farm with keys a worker is its key: the id it says hello and heartbeats under must
    /// be the key's name (or NAME@SUFFIX), so no key can speak for another key's workers. Every
    /// other message is taken as from the worker whose session its route is.
    static func impersonation(_ message: WireMessage, sender: String?) -> String? {
        let claimed: String? =
            switch message {
            case .hello(let info): info.id
            case .heartbeat(let beat): beat.worker.id
            default: nil
            }
        guard let claimed else { return nil }
        guard let sender, CurveKeys.id(claimed, belongsTo: sender) else {
            return "worker id \"\(claimed.prefix(64))\" does not belong to key \"\(sender ?? "none")\""
        }
        return nil
    }

    // MARK: Periodic work

    package func tick() throws {
        ticks += 1
        // Each statement that changes chunks adds a row of counts for its job; every five
        // seconds they are folded, so `farm status` sums a handful of rows per job.
        // And the farm hears that its coordinator serves (`farm status` warns when it stops).
        if ticks % 25 == 0 {
            try store.compactTallies()
            retention.poke()
            try premeasures.forgetEnded()
            try frames.forgetEnded()
        }
        // By the clock, not the tick count: a loop slowed by a loaded machine ticks less often,
        // and a farm told "no coordinator" while this one renders would be told wrong.
        if clock.now - lastServingRecord >= .seconds(FarmStore.coordinatorSilence / 3) {
            try store.recordCoordinatorServing()
            lastServingRecord = clock.now
        }
        // Notices go out within a second of a job's end.
        if ticks % 5 == 0 { notifier.poke() }
        // At the first tick and every five seconds: workers an earlier coordinator left listed.
        if ticks % 25 == 1 { try sessions.dropStale() }
        for key in try store.expireLeases() {
            logger.warning("lease of \(sessions.label(key)) expired; the chunk goes back to the queue")
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
        try sessions.recordReports()
        try sessions.dropSilent()
        try sessions.assignChunks()
        try joins.startJoins()
        try joins.finishJoins()
    }
}
