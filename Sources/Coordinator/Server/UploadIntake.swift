import FarmCore
import FarmDataFolder
import FarmMedia
import FarmPostgres
import FarmRender
import FarmStore
import FarmWire
import Foundation
import Logging

/// Takes uploads in: pieces into files, then, once the last is in, size and checksum, a
/// verification of the media and an fsync on a thread of its own (the loop keeps serving
/// heartbeats meanwhile), then acceptance behind the fence. OpenCue's FrameCompleteHandler.
package final class UploadIntake {
    /// A finished upload checked off the loop's thread.
    private struct Verified {
        var done: ChunkDone
        var route: [UInt8]
        var chunk: ChunkRecord
        /// The job's, to say how much sound a block holds.
        var sampleRate: Int
        var file: URL
        var outcome: Outcome
        /// The pinned version's digests of blocks the render read from a copy, read from the
        /// original by the verifier: recorded before the chunk is accepted.
        var pinnedBlocks: [MediaReads.Block]
        /// What the check took (the `farm_verify_seconds` histogram).
        var seconds: Double
        /// When the whole file was in, and when the check ended (`farm trace`).
        var uploadedAt: Date
        var verifiedAt = Date()
    }

    private enum Outcome {
        case passed
        /// The segment is bad: the attempt fails.
        case failed(String)
        /// The render read bytes that are not the pinned version's: the job fails.
        case changed(MediaChangedError)
        /// The check could not run (the coordinator's trouble): no verdict; the worker reports
        /// again and the check runs again.
        case deferred(String)
    }

    private let store: FarmStore
    private let outbox: any MessageSending
    private let sessions: WorkerSessions
    private let logger: Logger
    private let dataDirectory: URL
    private let uploads: UploadReceiver
    private let cache: SegmentCache
    let dataFolder: DataFolderHealth
    private let verifier = DispatchQueue(label: "farm.coordinator.verify")
    /// Used only on `verifier`.
    private let check: any SegmentChecking
    /// Used only on `verifier`.
    private let copies = CopySettler()
    /// Attempts whose upload is being verified: their resent pieces and `done` wait for the verdict.
    private var verifying: Set<AttemptKey> = []
    private let verified = Locked<[Verified]>([])
    /// Woken with each verdict: the loop accepts it at once, not at its next timeout.
    private let wakeup: LoopWakeup?

    /// Numbered frames written as their chunks are accepted.
    private let frames: FrameStaging?

    package init(
        store: FarmStore, outbox: any MessageSending, sessions: WorkerSessions, logger: Logger, dataDirectory: URL,
        check: any SegmentChecking, frames: FrameStaging? = nil, wakeup: LoopWakeup? = nil
    ) {
        self.frames = frames
        self.check = check
        self.wakeup = wakeup
        self.store = store
        self.outbox = outbox
        self.sessions = sessions
        self.logger = logger
        self.dataDirectory = dataDirectory
        uploads = UploadReceiver(logger: logger)
        cache = SegmentCache(dataDirectory: dataDirectory)
        dataFolder = DataFolderHealth(store: store, logger: logger, folder: dataDirectory)
        // The verifier's child starts now, not when the first upload is in and waits for it.
        verifier.async { [check] in check.prepare() }
    }

    /// The data folder's name in the cache's index, read once (`SegmentCache.identity`).
    private var knownCacheIdentity: String?
    private func cacheIdentity() throws -> String {
        if let known = knownCacheIdentity { return known }
        let identity = try cache.identity()
        knownCacheIdentity = identity
        return identity
    }

    package func folder(_ job: Int64) -> JobFolder {
        JobFolder(dataDirectory: dataDirectory, job: job)
    }

    package func piece(_ piece: UploadPiece, bytes: [UInt8], from route: [UInt8]) throws {
        // Only the worker that holds the attempt may upload for it, and a flood of pieces for
        // attempts no one holds costs a dictionary lookup each, not a database query.
        guard !verifying.contains(piece.key), sessions.holds(piece.key, route: route) else { return }
        let jobFolder: JobFolder
        if let held = uploads.folder(of: piece.key) {
            jobFolder = held
        } else {
            guard let chunk = try store.current(piece.key) else {
                outbox.send(.rejected(Verdict.stale(piece.key)), to: route)
                return
            }
            jobFolder = folder(chunk.job)
        }
        let received: Int64
        do {
            received = try uploads.receive(piece, bytes: bytes, into: jobFolder)
        } catch let error as SystemCallError {
            // No answer: the worker sends the piece again after its patience, until there is room.
            try dataFolder.failed(error)
            return
        }
        // Only a piece that was written shows the folder takes writes again.
        if !bytes.isEmpty, received == piece.offset + Int64(bytes.count) { try dataFolder.wrote() }
        outbox.send(.pieceAck(UploadAck(key: piece.key, received: received)), to: route)
        // Its render is over: the worker's slot is free for the next chunk while this one
        // uploads (claimed at the end of the loop's batch of messages).
        if piece.offset == 0 { _ = sessions.uploading(piece.key) }
    }

    /// The last piece is in: check size and checksum, then verify the media on the verifier's
    /// thread. A repeated `done` for an accepted attempt is answered again, not redone.
    package func done(_ done: ChunkDone, from route: [UInt8]) throws {
        guard !verifying.contains(done.key), sessions.holds(done.key, route: route) else { return }
        guard let chunk = try store.current(done.key) else {
            uploads.discard(done.key)
            if try store.isAccepted(done.key) {
                outbox.send(.accepted(Verdict(key: done.key, reason: "already accepted")), to: route)
            } else {
                logger.warning("rejected a late result: \(sessions.label(done.key)) is no longer current")
                outbox.send(.rejected(Verdict.stale(done.key)), to: route)
            }
            return
        }
        guard let upload = try uploads.complete(done.key, in: folder(chunk.job)), upload.bytes == done.bytes,
            upload.sha256 == done.sha256
        else {
            // Lost or damaged in transit: ask for the whole file again.
            logger.warning("\(sessions.label(done.key)): upload incomplete or checksum mismatch; asking again")
            outbox.send(.pieceAck(UploadAck(key: done.key, received: 0)), to: route)
            return
        }
        let uploadedAt = Date()
        try store.recordLog(done.key, lines: done.log ?? [])
        // Bytes of a pinned file that differ from the job's version's: the output would mix two
        // versions, and rendering again cannot help.
        let blocks = try store.checkMediaBlocks(done.mediaBlocks ?? [])
        if let changed = blocks.changed {
            try? FileManager.default.removeItem(at: upload.url)
            try failChanged(done.key, changed, route: route)
            return
        }
        guard let job = try store.job(chunk.job) else { return }
        // Blocks read from a copy that no reader of the pinned version has recorded: the
        // verifier reads them from the original (`CopySettler`).
        var copied: CopySettler.Job?
        if !blocks.unsettled.isEmpty {
            guard let project = try store.projectOf(job: chunk.job) else { return }
            copied = CopySettler.Job(
                id: chunk.job, projectText: project.text, projectFile: project.file, mediaRoot: project.mediaRoot,
                pins: try store.mediaPins(ofJob: chunk.job))
        }
        verifying.insert(done.key)
        let results = verified
        let check = check
        let copies = copies
        let unsettled = blocks.unsettled
        let copiedJob = copied
        let wakeup = wakeup
        verifier.async {
            let clock = ContinuousClock()
            let started = clock.now
            var outcome = Outcome.passed
            var pinned: [MediaReads.Block] = []
            switch copiedJob.map({ copies.settle(unsettled, of: $0) }) {
            case .same(let digests): pinned = digests
            case .changed(let changed): outcome = .changed(changed)
            case .unsettled(let reason): outcome = .failed(reason)
            case nil: break
            }
            if case .passed = outcome {
                do {
                    // What is stored, not what went by: a write the disk lost shows up here.
                    guard try SHA256.file(upload.url.path) == done.sha256 else {
                        throw TransportError(message: "the stored file does not match the upload's SHA-256")
                    }
                    try check.verify(upload.url, chunk: chunk, job: job)
                    do {
                        try AtomicFile.fsync(path: upload.url.path)
                    } catch {
                        outcome = .deferred("\(error)")
                    }
                } catch let unavailable as SegmentCheckUnavailable {
                    outcome = .deferred(unavailable.description)
                } catch {
                    outcome = .failed("segment failed verification: \(error)")
                }
            }
            results.withLock {
                $0.append(
                    Verified(
                        done: done, route: route, chunk: chunk, sampleRate: job.sampleRate, file: upload.url,
                        outcome: outcome,
                        pinnedBlocks: pinned, seconds: (clock.now - started) / .seconds(1), uploadedAt: uploadedAt))
            }
            wakeup?.wake()
        }
    }

    /// Acts on the verdicts the verifier reached since the last call. A released attempt frees
    /// its worker's slot, which the loop's next claim fills. Returns the jobs that had a chunk
    /// accepted: the last one starts the job's join.
    @discardableResult
    package func collectVerified() throws -> Set<Int64> {
        let finished = verified.withLock { results in
            defer { results.removeAll() }
            return results
        }
        var accepted: Set<Int64> = []
        for (index, result) in finished.enumerated() {
            do {
                if try conclude(result) { accepted.insert(result.chunk.job) }
            } catch {
                // The database went away mid-verdict: keep this one and the rest for later.
                let unfinished = finished[index...]
                verified.withLock { $0.insert(contentsOf: unfinished, at: 0) }
                throw error
            }
            verifying.remove(result.done.key)
        }
        return accepted
    }

    /// Records a verdict; returns whether the chunk was accepted.
    private func conclude(_ result: Verified) throws -> Bool {
        let key = result.done.key
        let label = result.chunk.work.label(job: result.chunk.job, attempt: key.attempt)
        if case .deferred(let reason) = result.outcome {
            logger.error(
                "\(label): cannot check the upload now (\(reason)); it is checked again when the worker reports")
            return false
        }
        // The pinned version's digests the verifier read for a copy: held against any other
        // reader of the version recorded meanwhile.
        var changed = try store.checkMediaBlocks(result.pinnedBlocks).changed
        if case .changed(let found) = result.outcome { changed = found }
        if let changed {
            try? FileManager.default.removeItem(at: result.file)
            try failChanged(key, changed, route: result.route)
            return false
        }
        let sentAt = sessions.sentAt(key)
        sessions.release(key)
        try store.observe(.verifySeconds, result.seconds)
        if case .failed(let problem) = result.outcome {
            try? FileManager.default.removeItem(at: result.file)
            logger.warning("\(label): \(problem)")
            outbox.send(.rejected(Verdict(key: key, reason: problem)), to: result.route)
            if let failed = try store.fail(key, error: problem) { logger.error("job \(failed) failed: \(problem)") }
            return false
        }
        let made = result.done.made(by: result.chunk.kind)
        let instants = FarmStore.AttemptInstants(
            sent: sentAt, phases: result.done.phases.map { ($0.queued, $0.rendering, $0.uploading) },
            uploaded: result.uploadedAt, verified: result.verifiedAt, accepted: Date())
        // A result sent again after the database went away mid-commit finds its own acceptance:
        // put in place again, but counted once (by the acceptance).
        guard
            try store.accept(key, made: made, bytes: result.done.bytes, instants: instants) || store.isAccepted(key)
        else {
            try? FileManager.default.removeItem(at: result.file)
            outbox.send(.rejected(Verdict.stale(key)), to: result.route)
            return false
        }
        // Accepted in the database first: a file lost before this rename is found missing
        // before the join and rendered again, never joined half-written. A verdict taken up
        // again because the database went away later in it (the cache's row) finds its file
        // moved already.
        let chunk = result.chunk
        if FileManager.default.fileExists(atPath: result.file.path) {
            try AtomicFile.replace(folder(chunk.job).result(of: chunk.work), with: result.file, synced: true)
        }
        let jobFolder = folder(chunk.job)
        if chunk.kind == .video {
            jobFolder.keepThumbnail(result.done.thumbnail, chunk: chunk.index)
            jobFolder.keepStills(result.done.stills)
            jobFolder.keepBlackFrames(result.done.blackFrames, chunk: chunk.index)
            try frames?.stage(chunk)
        }
        if let key = chunk.contentKey {
            // The cache is a help, never a reason to fail a chunk: a segment it cannot keep is
            // rendered again by a later job.
            do {
                // The row first: a file without one would never be evicted, while a row whose
                // file is missing is found at the next join and rendered again.
                try store.cacheSegment(
                    key: key, folder: try cacheIdentity(), kind: chunk.kind, bytes: result.done.bytes,
                    sha256: result.done.sha256, made: result.done.key)
                do {
                    var thumbnail: URL?
                    var blackFrames: [FrameRun]?
                    if case .video(let span) = chunk.work {
                        thumbnail = jobFolder.thumbnail(chunk: chunk.index)
                        blackFrames = result.done.blackFrames.map { FrameRun.shifted($0, by: -span.start) }
                    }
                    try cache.keep(
                        jobFolder.result(of: chunk.work), thumbnail: thumbnail, blackFrames: blackFrames, key: key)
                } catch {
                    try store.forgetCachedSegments([key])
                    throw error
                }
            } catch let error as PostgresError {
                throw error
            } catch {
                logger.warning("job \(chunk.job) \(chunk.work.name): not kept in the cache: \(error)")
            }
        }
        logger.info(
            """
            job \(chunk.job) \(chunk.label) accepted from \(sessions.name(of: result.route)) \
            (attempt \(key.attempt), \(made.description(sampleRate: result.sampleRate)))
            """
        )
        outbox.send(.accepted(Verdict(key: key, reason: "accepted")), to: result.route)
        return true
    }

    /// Fails the attempt and its job: the render read bytes that are not the pinned version's.
    /// Records a failed render. One that found pinned assets as copies first has them held
    /// against their pins: a changed original is the verdict, whatever the decoder said.
    func failed(_ failure: ChunkFailed, worker: String, route: [UInt8]) throws {
        logger.warning("\(sessions.label(failure.key)) failed on \(worker): \(failure.error)")
        if failure.fatal != true,
            let changed = try ChangedOriginals(store: store).changed(among: failure.copies ?? [], of: failure.key)
        {
            try store.recordLog(failure.key, lines: failure.log ?? [])
            return try failChanged(failure.key, changed, route: route)
        }
        sessions.release(failure.key)
        if let job = try store.fail(
            failure.key, worker: worker, error: failure.error, fatal: failure.fatal == true, log: failure.log)
        {
            logger.error("job \(job) failed: \(failure.error)")
        }
    }

    private func failChanged(_ key: AttemptKey, _ changed: MediaChangedError, route: [UInt8]) throws {
        sessions.release(key)
        outbox.send(.rejected(Verdict(key: key, reason: changed.description)), to: route)
        if let failed = try store.fail(key, error: changed.description, fatal: true) {
            logger.error("job \(failed) failed: \(changed)")
        }
    }

    /// Drops an upload in progress (its lease expired, or its job stopped).
    func discard(_ key: AttemptKey) {
        uploads.discard(key)
    }

    /// Whether verifications are still running; the coordinator waits for them before it stops.
    package var isBusy: Bool { !verifying.isEmpty }
}
