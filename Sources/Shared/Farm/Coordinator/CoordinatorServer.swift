import Foundation
import Logging

/// The coordinator: hands chunks to workers over ZeroMQ, takes their uploads, verifies them,
/// and joins every finished job into its output file. All state lives in PostgreSQL, so a
/// restarted coordinator carries on where the last one stopped.
///
/// One thread runs the loop and owns the socket and the database connection; joins run on
/// their own threads.
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

    private struct WorkerSession {
        var route: [UInt8]
        var info: WorkerInfo
        var lastHeard: ContinuousClock.Instant
        var running: Set<AttemptKey> = []
        var draining = false
    }

    public let configuration: Configuration
    /// The endpoint bound, with a `*` port resolved.
    public let endpoint: String
    private let store: FarmStore
    private let socket: MessageSocket
    private let uploads = UploadReceiver()
    private let logger: Logger
    private let stopFlag = StopFlag()
    private let clock = ContinuousClock()
    private var workers: [String: WorkerSession] = [:]
    private var joining: Set<Int64> = []
    private let joinResults = Locked<[(job: Int64, error: String?)]>([])

    public init(configuration: Configuration, logger: Logger = Logger(label: "farm.coordinator")) throws {
        self.configuration = configuration
        self.logger = logger
        store = try FarmStore(url: configuration.database)
        try FileManager.default.createDirectory(at: configuration.dataDirectory, withIntermediateDirectories: true)
        socket = try MessageSocket(.router)
        try socket.bind(configuration.bind)
        endpoint = socket.lastEndpoint
    }

    /// Asks `run()` to return; safe from any thread.
    public func stop() { stopFlag.raise() }

    /// Serves until `stop()`.
    public func run() throws {
        logger.info("coordinator listening on \(endpoint)")
        var lastTick = clock.now - .seconds(1)
        while !stopFlag.isRaised {
            if let frames = try socket.receive(timeout: 0.05) {
                handle(frames)
            }
            if clock.now - lastTick >= .milliseconds(200) {
                lastTick = clock.now
                try tick()
            }
        }
        // Joins in flight finish before returning: their output must not be left half-done.
        while !joining.isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            try finishJoins()
        }
        // No one hears them now; a coordinator that starts again marks them seen at their next heartbeat.
        for id in workers.keys { try store.workerLost(id) }
    }

    // MARK: Messages

    private func handle(_ frames: [[UInt8]]) {
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
            logger.info("worker \(info.id) joined: \(info.host), \(info.cores) cores, \(info.slots) slots, farm \(info.version)")
            try sessionHeard(info, route: route, rendering: nil)
            send(.welcome, to: route)
        case .heartbeat(let beat):
            let id = beat.worker.id
            if workers[id] == nil { logger.info("worker \(id) is back") }
            // The worker's own list says whether it renders: a cancelled chunk counts until it has really stopped.
            try sessionHeard(beat.worker, route: route, rendering: !beat.running.isEmpty)
            workers[id]?.running.formUnion(beat.running)
            let stale = try store.renewLeases(worker: id, holding: beat.running, leaseSeconds: configuration.leaseSeconds)
            for key in stale {
                workers[id]?.running.remove(key)
                send(.cancel(Verdict.stale(key)), to: route)
            }
            if workers[id]?.draining == true {
                for key in beat.waiting ?? [] where !stale.contains(key) {
                    logger.info("worker \(id) is draining; taking back \(key) before it starts")
                    try store.giveBack(key, reason: "worker \(id) is draining")
                    release(key)
                    send(.cancel(Verdict(key: key, reason: "worker draining")), to: route)
                }
            }
            send(.coordinatorHeartbeat, to: route)
        case .progress(let report):
            try store.recordProgress(report)
        case .piece(let piece, let bytes):
            guard let chunk = try store.current(piece.key) else {
                uploads.discard(piece.key)
                send(.rejected(Verdict.stale(piece.key)), to: route)
                return
            }
            let received = try uploads.receive(piece, bytes: bytes, into: folder(chunk.job))
            send(.pieceAck(UploadAck(key: piece.key, received: received)), to: route)
        case .done(let done):
            try finishUpload(done, from: route)
            try assignChunks()
        case .failed(let failure):
            release(failure.key)
            logger.warning("\(failure.key) failed: \(failure.error)")
            if let job = try store.fail(failure.key, error: failure.error) {
                logger.error("job \(job) failed: \(failure.error)")
            }
            try assignChunks()
        case .welcome, .coordinatorHeartbeat, .assign, .pieceAck, .accepted, .rejected, .cancel:
            logger.warning("ignoring a coordinator-only message from a worker")
        }
    }

    /// `rendering` is what the worker reported, or nil to go by what this coordinator assigned.
    private func sessionHeard(_ info: WorkerInfo, route: [UInt8], rendering: Bool?) throws {
        var session = workers[info.id] ?? WorkerSession(route: route, info: info, lastHeard: clock.now)
        session.route = route
        session.info = info
        session.lastHeard = clock.now
        session.draining = try store.workerSeen(info, rendering: rendering ?? !session.running.isEmpty)
        workers[info.id] = session
    }

    /// The last piece is in: check size and checksum, verify the media, then accept it behind
    /// the fence. A repeated `done` for an accepted attempt is answered again, not redone.
    private func finishUpload(_ done: ChunkDone, from route: [UInt8]) throws {
        guard let chunk = try store.current(done.key) else {
            uploads.discard(done.key)
            if let record = try store.chunk(done.key.chunk), record.state == "done", record.attempt == done.key.attempt {
                send(.accepted(Verdict(key: done.key, reason: "already accepted")), to: route)
            } else {
                logger.warning("rejected a late result: \(done.key) is no longer current")
                send(.rejected(Verdict.stale(done.key)), to: route)
            }
            return
        }
        guard let upload = try uploads.complete(done.key), upload.bytes == done.bytes, upload.sha256 == done.sha256 else {
            // Lost or damaged in transit: ask for the whole file again.
            logger.warning("\(done.key): upload incomplete or checksum mismatch; asking again")
            send(.pieceAck(UploadAck(key: done.key, received: 0)), to: route)
            return
        }
        let job = try store.job(chunk.job)
        do {
            switch chunk.kind {
            case .video: try SegmentVerifier.verifyVideo(upload.url, chunk: chunk.chunk, fps: job?.fps ?? Rational(30))
            case .audio: try SegmentVerifier.verifyAudio(upload.url)
            }
        } catch {
            try? FileManager.default.removeItem(at: upload.url)
            release(done.key)
            let text = "segment failed verification: \(error)"
            logger.warning("\(done.key): \(text)")
            send(.rejected(Verdict(key: done.key, reason: text)), to: route)
            if let failed = try store.fail(done.key, error: text) { logger.error("job \(failed) failed: \(text)") }
            return
        }
        let destination = folder(chunk.job).result(kind: chunk.kind, chunk: chunk.chunk)
        let accepted = try store.accept(done.key, fps: done.fps, frames: done.frames) {
            try AtomicFile.replace(destination, with: upload.url)
        }
        release(done.key)
        if accepted {
            let what = chunk.kind == .audio ? "audio" : "chunk \(chunk.index) [\(chunk.start), \(chunk.end))"
            logger.info("job \(chunk.job) \(what) accepted from \(workerName(route)) (attempt \(done.key.attempt), \(String(format: "%.1f", done.fps)) fps)")
            send(.accepted(Verdict(key: done.key, reason: "accepted")), to: route)
        } else {
            try? FileManager.default.removeItem(at: upload.url)
            send(.rejected(Verdict.stale(done.key)), to: route)
        }
    }

    // MARK: Periodic work

    private func tick() throws {
        for key in try store.expireLeases() {
            logger.warning("lease of \(key) expired; the chunk goes back to the queue")
            release(key)
            uploads.discard(key)
        }
        for (key, worker) in try store.stopAttemptsOfFinishedJobs() {
            uploads.discard(key)
            release(key)
            if let route = workers[worker]?.route { send(.cancel(Verdict(key: key, reason: "job stopped")), to: route) }
        }
        let silence = Duration.seconds(configuration.leaseSeconds)
        for (id, session) in workers where clock.now - session.lastHeard > silence {
            logger.warning("worker \(id) went silent; marking it lost")
            workers[id] = nil
            try store.workerLost(id)
        }
        try assignChunks()
        try startJoins()
        try finishJoins()
    }

    /// Gives every worker with room its next chunks: one per slot plus one waiting, so a worker
    /// starts rendering its next chunk while the last one uploads.
    private func assignChunks() throws {
        for id in workers.keys.sorted() {
            while let session = workers[id], !session.draining, session.running.count < session.info.slots + 1 {
                guard let assignment = try store.claim(worker: id, leaseSeconds: configuration.leaseSeconds) else { break }
                workers[id]?.running.insert(assignment.key)
                try store.workerSeen(session.info, rendering: true)
                send(.assign(assignment), to: session.route)
            }
        }
    }

    private func release(_ key: AttemptKey) {
        for id in workers.keys { workers[id]?.running.remove(key) }
    }

    private func startJoins() throws {
        for job in try store.jobsReadyToJoin() where !joining.contains(job.id) {
            guard try store.markJoining(job: job.id) else { continue }
            joining.insert(job.id)
            let chunks = try store.videoChunks(job: job.id)
            let folder = folder(job.id)
            let segments = chunks.map { SegmentJoiner.Segment(url: folder.result(kind: .video, chunk: $0), chunk: $0) }
            let audio = folder.result(kind: .audio, chunk: Chunk(index: 0, start: 0, end: job.frameCount))
            if try requeueMissing(job: job.id, segments: segments, audio: audio) {
                joining.remove(job.id)
                continue
            }
            logger.info("job \(job.id): all \(chunks.count) chunks and the audio are in; joining \(job.outputPath)")
            let results = joinResults
            let thread = Thread {
                var error: String?
                do {
                    try SegmentJoiner.join(
                        segments: segments, audio: audio, fps: job.fps, container: job.container,
                        to: URL(fileURLWithPath: job.outputPath))
                } catch let failure {
                    error = "joining \(job.outputPath): \(failure)"
                }
                results.withLock { $0.append((job.id, error)) }
            }
            thread.start()
        }
    }

    /// Segments removed after an earlier join (a job sent back by `farm retry`) are rendered
    /// again rather than failing the join. Returns whether any were missing.
    private func requeueMissing(job: Int64, segments: [SegmentJoiner.Segment], audio: URL) throws -> Bool {
        let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
        let missing = segments.filter { !exists($0.url) }.map(\.chunk.index)
        let audioMissing = !exists(audio)
        guard !missing.isEmpty || audioMissing else { return false }
        logger.warning("job \(job): \(missing.count) segment(s)\(audioMissing ? " and the audio" : "") missing; rendering them again")
        try store.requeue(job: job, chunks: missing, kind: .video)
        if audioMissing { try store.requeue(job: job, chunks: [0], kind: .audio) }
        return true
    }

    private func finishJoins() throws {
        let finished = joinResults.withLock { results in
            defer { results.removeAll() }
            return results
        }
        for (job, error) in finished {
            joining.remove(job)
            guard try store.finish(job: job, error: error) else {
                // Cancelled while joining: a cancelled job leaves no output behind. A job sent
                // back by `farm retry` meanwhile is joined again once its chunks are in.
                if error == nil, let record = try store.job(job), record.state == "cancelled" {
                    try? FileManager.default.removeItem(atPath: record.outputPath)
                    logger.info("job \(job) was cancelled during its join; removed \(record.outputPath)")
                }
                continue
            }
            if let error {
                logger.error("job \(job) failed: \(error)")
            } else {
                logger.info("job \(job) done")
                if configuration.removeSegmentsWhenDone { folder(job).remove() }
            }
        }
    }

    // MARK: Helpers

    private func folder(_ job: Int64) -> JobFolder {
        JobFolder(dataDirectory: configuration.dataDirectory, job: job)
    }

    private func workerName(_ route: [UInt8]) -> String {
        workers.first { $0.value.route == route }?.key ?? String(decoding: route, as: UTF8.self)
    }

    private func send(_ message: WireMessage, to route: [UInt8]) {
        do {
            if try !socket.send([route] + message.encoded()) {
                logger.debug("worker \(String(decoding: route, as: UTF8.self)) is unreachable")
            }
        } catch {
            logger.error("send failed: \(error)")
        }
    }
}
