import FarmCore
import FarmDataFolder
import FarmMedia
import FarmPostgres
import FarmRender
import FarmStore
import Foundation
import Logging

/// Joins every job whose chunks are all accepted into its output file, each join on a thread
/// of its own, and records how it ended.
package final class JoinScheduler {
    private let store: FarmStore
    private let logger: Logger
    private let dataDirectory: URL
    private let removeSegmentsWhenDone: Bool
    private let outputRoot: OutputRoot?
    private var joining: Set<Int64> = []
    /// Joins that ended: the job, the failure if any, the seconds the join took, and the cached
    /// segments found missing or damaged before it (then there was no join).
    private let results = Locked<[JoinResult]>([])

    /// Whether the QC keeps sound measures for later jobs: not under `--cache-size 0`, which
    /// keeps nothing for them.
    private let keepsMeasures: Bool
    /// Sound measured before the join, while the pictures rendered.
    private let premeasures: SoundPremeasures?
    /// Woken when a join ends: the loop records it at once, not at its next timeout.
    private let wakeup: LoopWakeup?
    /// Numbered frames written as their chunks were accepted.
    private let frames: FrameStaging?

    package init(
        store: FarmStore, logger: Logger, dataDirectory: URL, removeSegmentsWhenDone: Bool, outputRoot: OutputRoot?,
        keepsMeasures: Bool = true, premeasures: SoundPremeasures? = nil, frames: FrameStaging? = nil,
        wakeup: LoopWakeup? = nil
    ) {
        self.frames = frames
        self.wakeup = wakeup
        self.keepsMeasures = keepsMeasures
        self.premeasures = premeasures
        self.outputRoot = outputRoot
        self.store = store
        self.logger = logger
        self.dataDirectory = dataDirectory
        self.removeSegmentsWhenDone = removeSegmentsWhenDone
    }

    package var isJoining: Bool { !joining.isEmpty }

    private func folder(_ job: Int64) -> JobFolder {
        JobFolder(dataDirectory: dataDirectory, job: job)
    }

    /// Whether a join has ended and waits for `finishJoins`.
    package var hasFinished: Bool { results.withLock { !$0.isEmpty } }

    /// Starts the joins of every job ready, or of those among `jobs`.
    package func startJoins(of jobs: Set<Int64>? = nil) throws {
        for job in try store.jobsReadyToJoin(among: jobs.map(Array.init)) where !joining.contains(job.id) {
            guard try store.markJoining(job: job.id) else { continue }
            // Checked again here, whatever the submitter checked: a job in the database could
            // have been written by anyone who reaches it.
            if let problem = outputRoot?.problem(with: job.outputPath) {
                logger.error("job \(job.id) failed: \(problem)")
                try store.finish(job: job.id, error: problem)
                continue
            }
            joining.insert(job.id)
            for name in AtomicFile.removeLeftovers(of: URL(fileURLWithPath: job.outputPath)) {
                logger.info("job \(job.id): removed \(name), left by a join that was killed")
            }
            let folder = folder(job.id)
            let segments = folder.segments(try store.chunks(job: job.id))
            let audio = folder.segments(try store.audioBlocks(job: job.id))
            // Chunks done by the segment cache are put in the folder by the join's thread, which
            // reads each one whole to check it: never the coordinator's loop.
            let cached = try store.reusedChunks(job: job.id)
            let fromCache = Set(cached.map { "\($0.kind) \($0.index)" })
            if try requeueMissing(
                job: job.id, segments: segments.filter { !fromCache.contains("video \($0.span.index)") },
                audio: audio.filter { !fromCache.contains("audio \($0.span.index)") })
            {
                joining.remove(job.id)
                continue
            }
            let parts = "\(segments.count) chunks and \(audio.count) audio blocks"
            logger.info("job \(job.id): all \(parts) are in; joining \(job.outputPath)")
            let results = self.results
            let cache = SegmentCache(dataDirectory: dataDirectory)
            let keepsMeasures = self.keepsMeasures
            let project = try store.projectOf(job: job.id)
            let premeasures = self.premeasures
            let logger = self.logger
            let wakeup = self.wakeup
            let staging = self.frames
            let thread = Thread {
                let clock = ContinuousClock()
                let started = clock.now
                let startedAt = Date()
                let damaged = Self.take(
                    cached, from: cache, into: folder, fps: job.fps,
                    chunkStarts: Dictionary(uniqueKeysWithValues: segments.map { ($0.span.index, $0.span.start) }))
                guard damaged.isEmpty else {
                    results.withLock { $0.append(JoinResult(job: job.id, damaged: damaged)) }
                    wakeup?.wake()
                    return
                }
                var error: String?
                // Read once, for the join, the stills and the QC.
                var parsed: Project?
                do {
                    parsed = try project.map(Self.parse)
                    let frames = (segments.first?.span.start ?? 0)..<(segments.last?.span.end ?? 0)
                    var subtitles: [SubtitleTrack] = []
                    if let project, let parsed {
                        subtitles = try Self.subtitles(of: project, parsed: parsed, frames: frames)
                    }
                    let destination = URL(fileURLWithPath: job.outputPath)
                    if let parsed {
                        let frameOwner =
                            job.container == .frames
                            ? staging?.finishWrites(of: job.id, to: destination, chunks: segments.count) : nil
                        try OutputJoin.join(
                            export: parsed.export, output: parsed.output, segments: segments, audio: audio,
                            container: job.container, subtitles: subtitles, to: destination,
                            frameOwner: frameOwner)
                    } else {
                        try SegmentJoiner.join(
                            segments: segments, audio: audio, fps: job.fps, sampleRate: job.sampleRate,
                            container: job.container, subtitles: subtitles, to: destination)
                    }
                } catch let failure {
                    error = "joining \(job.outputPath): \(failure)"
                }
                if error == nil, let parsed {
                    do {
                        let stills = try Self.writeStills(
                            of: parsed, segments: segments, folder: folder, fps: job.fps, output: job.outputPath)
                        if stills.of > 0 {
                            logger.info(
                                "job \(job.id): \(stills.made) of \(stills.of) stills made by the workers")
                        }
                    } catch let failure {
                        error = "writing the stills beside \(job.outputPath): \(failure)"
                    }
                }
                let joinedAt = Date()
                var qc: QCReport?
                if error == nil {
                    let black = Self.blackFrames(of: segments, in: folder)
                    // A job whose every audio block came from the segment cache may find its
                    // sound measured already; one rendered afresh (`--no-cache`) never does.
                    let soundCache =
                        keepsMeasures
                        ? QCSoundCache(
                            folder: cache.folder.appendingPathComponent("qc"),
                            reads: audio.allSatisfy { fromCache.contains("audio \($0.span.index)") }) : nil
                    let measured = premeasures?.take(job: job.id)
                    (qc, error) = Self.check(
                        job: job, parsed: parsed, segments: segments, audio: audio, blackFrames: black,
                        soundCache: soundCache, measuredSound: measured)
                    if let measured, qc?.audio == measured.audio {
                        logger.info("job \(job.id): the QC took the sound measured before the join")
                    }
                } else {
                    _ = premeasures?.take(job: job.id)
                }
                let seconds = (clock.now - started) / .seconds(1)
                // Measured here, off the loop: operators see what a finished job keeps at once,
                // not at the retention pass's next round.
                let bytes = SegmentRetention.size(of: folder.url)
                results.withLock {
                    $0.append(
                        JoinResult(
                            job: job.id, error: error, seconds: seconds, segmentBytes: bytes, qc: qc,
                            instants: (startedAt, joinedAt, Date())))
                }
                wakeup?.wake()
            }
            thread.start()
        }
    }

    /// Keeps a job's QC report; a report the database cannot take is logged, never a reason
    /// to stop serving (a lost connection is waited out as everywhere).
    private func recordQC(_ report: QCReport, job: Int64) throws {
        do {
            try store.recordQC(job: job, report)
        } catch let error as PostgresError where error.isConnectionLost {
            throw error
        } catch {
            logger.error("job \(job): its QC report could not be kept: \(error)")
        }
    }

    /// The joined output's QC report (`OutputQC`), and the job's failure when the output misses
    /// a loudness target that must be met: then the file is kept aside, never at its path.
    private static func check(
        job: JobRecord, parsed: Project?,
        segments: [SegmentJoiner.Segment<Chunk>], audio: [SegmentJoiner.Segment<AudioBlock>], blackFrames: [Bool]?,
        soundCache: QCSoundCache?, measuredSound: OutputQC.MeasuredSound?
    ) -> (QCReport?, String?) {
        let output = URL(fileURLWithPath: job.outputPath)
        let target = parsed?.export.audio.loudness
        let report: QCReport
        do {
            let chunkStarts = segments.map(\.span.start)
            let blockStarts = audio.map { $0.span.start - job.samples.lowerBound }
            if let parsed {
                report = try OutputQC.measureOutputs(
                    export: parsed.export, output: parsed.output, container: job.container, at: output,
                    chunkStarts: chunkStarts, blockStarts: blockStarts, blackFrames: blackFrames,
                    soundCache: soundCache, measuredSound: measuredSound)
            } else {
                report = try OutputQC.measure(
                    output, fps: job.fps, chunkStarts: chunkStarts, blockStarts: blockStarts, target: target,
                    blackFrames: blackFrames, soundCache: soundCache, measuredSound: measuredSound)
            }
        } catch {
            // A report that cannot be made fails the job only when a target must be met.
            return (nil, target?.failIfMissed == true ? "the QC pass could not read \(job.outputPath): \(error)" : nil)
        }
        guard let target, target.failIfMissed, !report.meetsTarget else { return (report, nil) }
        let aside = QCReport.asideURL(for: output)
        try? FileManager.default.removeItem(at: aside)
        let kept = (try? FileManager.default.moveItem(at: output, to: aside)) != nil
        var moved = report
        if kept { moved.path = aside.path }
        let keptText = kept ? "; the output is kept as \(aside.path)" : ""
        return (moved, "the output misses its loudness target: \(report.misses.joined(separator: "; "))\(keptText)")
    }

    /// One flag per output frame: the workers' measures kept beside the segments, and for a
    /// segment without them (from the cache, or an older worker) its own frames decoded. Nil
    /// when a segment cannot be read: the QC then decodes the output.
    static func blackFrames(of segments: [SegmentJoiner.Segment<Chunk>], in folder: JobFolder) -> [Bool]? {
        guard let first = segments.first?.span.start, let last = segments.last?.span.end else { return [] }
        var runs: [FrameRun] = []
        for segment in segments {
            if let kept = folder.keptBlackFrames(chunk: segment.span.index) {
                runs += kept
            } else {
                guard let flags = try? BlackFrameScan.blackFrames(path: segment.url.path) else { return nil }
                runs += FrameRun.runs(of: flags, from: segment.span.start)
            }
        }
        return FrameRun.flags(runs, over: first..<last)
    }

    /// Puts a job's chunks done by the cache in its folder, each checked against its
    /// checksum; returns those missing or damaged (dropped from the cache's folder).
    private static func take(
        _ entries: [CachedSegment], from cache: SegmentCache, into folder: JobFolder, fps: Rational,
        chunkStarts: [Int: Int64]
    ) -> [CachedSegment] {
        guard !entries.isEmpty else { return [] }
        try? folder.create()
        var checked: Set<String> = []
        return entries.filter { entry in
            let result = folder.result(kind: entry.kind, index: entry.index)
            if FileManager.default.fileExists(atPath: result.path) { return false }
            let runs: [FrameRun]?
            if let within = entry.within {
                // A GOP of a cached segment (`ChunkGrains`): cut from it, with no thumbnail.
                guard cache.take(part: entry, to: result, fps: fps, checked: &checked) else { return true }
                runs = cache.keptBlackFrames(part: within)
            } else {
                let thumbnail = entry.kind == .video ? folder.thumbnail(chunk: entry.index) : nil
                guard cache.take(entry, to: result, thumbnail: thumbnail) else { return true }
                runs = entry.kind == .video ? cache.keptBlackFrames(entry.key) : nil
            }
            // The worker's black frames come too, at this job's place of the chunk.
            if let runs, let start = chunkStarts[entry.index] {
                folder.keepBlackFrames(FrameRun.shifted(runs, by: start), chunk: entry.index)
            }
            return false
        }
    }

    /// Segments removed after an earlier join (a job sent back by `farm retry`), or lost before
    /// their accepted file was in place, are rendered again rather than failing the join.
    /// Returns whether any were missing.
    private func requeueMissing(
        job: Int64, segments: [SegmentJoiner.Segment<Chunk>], audio: [SegmentJoiner.Segment<AudioBlock>]
    ) throws -> Bool {
        let missing = segments.filter { !FileManager.default.fileExists(atPath: $0.url.path) }.map(\.span.index)
        let audioMissing = audio.filter { !FileManager.default.fileExists(atPath: $0.url.path) }.map(\.span.index)
        guard !missing.isEmpty || !audioMissing.isEmpty else { return false }
        let what = "\(missing.count) segment(s) and \(audioMissing.count) audio block(s)"
        logger.warning("job \(job): \(what) missing; rendering them again")
        try store.requeue(
            job: job, chunks: missing.map { (.video, $0) } + audioMissing.map { (.audio, $0) })
        return true
    }

    package func finishJoins() throws {
        let finished = results.withLock { results in
            defer { results.removeAll() }
            return results
        }
        for (index, result) in finished.enumerated() {
            let (job, error, damaged) = (result.job, result.error, result.damaged)
            if !damaged.isEmpty {
                // Rendered again, never joined: forgotten by the cache, queued with fresh tries.
                logger.warning(
                    "job \(job): \(damaged.count) cached segment(s) missing or damaged; rendering them again")
                // A GOP's segment goes too: its GOPs are the segment's bytes.
                try store.forgetCachedSegments(damaged.map(\.key) + damaged.compactMap(\.within?.key))
                try store.requeue(job: job, chunks: damaged.map { ($0.kind, $0.index) })
                joining.remove(job)
                continue
            }
            let recorded: Bool
            do {
                if let qc = result.qc { try recordQC(qc, job: job) }
                if let (started, joined, checked) = result.instants {
                    try store.recordJoinInstants(job: job, started: started, joined: joined, checked: checked)
                }
                recorded = try store.finish(
                    job: job, error: error, segmentBytes: removeSegmentsWhenDone ? nil : result.segmentBytes)
            } catch {
                // The database went away: record these joins' ends once it is back.
                let unfinished = finished[index...]
                results.withLock { $0.insert(contentsOf: unfinished, at: 0) }
                throw error
            }
            joining.remove(job)
            guard recorded else {
                // Cancelled while joining: a cancelled job leaves no output behind. A job sent
                // back by `farm retry` meanwhile is joined again once its chunks are in.
                if error == nil, let record = try store.job(job), record.state == .cancelled {
                    try? FileManager.default.removeItem(atPath: record.outputPath)
                    logger.info("job \(job) was cancelled during its join; removed \(record.outputPath)")
                }
                continue
            }
            if let error {
                logger.error("job \(job) failed: \(error)")
            } else {
                try? store.observe(.joinSeconds, result.seconds)
                logger.info("job \(job) done")
                if removeSegmentsWhenDone { folder(job).remove() }
            }
        }
    }
}

/// How a join ended: its failure if any, the seconds it took and the bytes the job's folder
/// held after it; or the cached segments it found missing or damaged (then it did not join).
private struct JoinResult: Sendable {
    var job: Int64
    var error: String?
    var seconds: Double = 0
    var segmentBytes: Int64?
    var damaged: [CachedSegment] = []
    var qc: QCReport?
    /// When the join began, wrote the file and measured its QC report.
    var instants: (started: Date, joined: Date, checked: Date)?
}
