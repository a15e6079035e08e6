import FarmCore
import FarmDataFolder
import FarmRender
import FarmStore
import Foundation
import Logging

/// Numbered-frames outputs written as their chunks are accepted (`FrameFiles.stage`), not all
/// at the join: each accepted chunk's frames go into the job's staging folder beside the
/// output on a thread behind the loop and the renders, so the job's end is a flush and a
/// rename per frame. A chunk not staged (from the segment cache, or a write that failed) is
/// written by the join as before; the join waits for the writes under way.
package final class FrameStaging: @unchecked Sendable {
    private struct Queue {
        var work: [() -> Void] = []
        var draining = false
    }

    private let store: FarmStore
    private let logger: Logger
    private let dataDirectory: URL
    private let outputRoot: OutputRoot?
    /// Jobs met, by id: their output when it is numbered frames, nil for any other. The
    /// loop's alone.
    private var outputs: [Int64: URL?] = [:]
    private let queue = Locked(Queue())
    /// The writes under way, by job: a join waits for its own job's alone.
    private let pending = Locked<[Int64: DispatchGroup]>([:])
    /// Jobs whose join has taken their staging folder: it removes the folder, never `forgetEnded`
    /// (a job cancelled while it joins must not lose frames the join is renaming).
    private let joined = Locked<Set<Int64>>([])

    init(store: FarmStore, logger: Logger, dataDirectory: URL, outputRoot: OutputRoot?) {
        self.store = store
        self.logger = logger
        self.dataDirectory = dataDirectory
        self.outputRoot = outputRoot
    }

    /// The staging folder's owner for `job`, as the join names it too.
    static func owner(of job: Int64) -> String { "job\(job)" }

    /// Starts writing the frames of an accepted chunk, if its job's output is numbered frames.
    func stage(_ chunk: ChunkRecord) throws {
        guard case .video(let span) = chunk.work, let destination = try output(of: chunk.job) else { return }
        let segment = SegmentJoiner.Segment(
            url: JobFolder(dataDirectory: dataDirectory, job: chunk.job).result(of: chunk.work), span: span)
        let logger = self.logger
        enqueue(job: chunk.job) {
            do {
                // A farm job's frames are numbered from the timeline's first.
                try FrameFiles.stage(segment, origin: 0, of: destination, owner: Self.owner(of: chunk.job))
            } catch {
                logger.info("job \(chunk.job) \(chunk.label): its frames are written at the join instead (\(error))")
            }
        }
    }

    /// Waits for the writes under way and returns the staging folder's owner for the join
    /// of `job`, saying how many of its `chunks` are staged. Called on the join's thread.
    func finishWrites(of job: Int64, to destination: URL, chunks: Int) -> String {
        joined.withLock { _ = $0.insert(job) }
        pending.withLock { $0[job] }?.wait()
        let owner = Self.owner(of: job)
        let staged = FrameFiles.stagedChunks(of: destination, owner: owner)
        logger.info("job \(job): \(staged) of \(chunks) chunks' frames written as they were accepted")
        return owner
    }

    /// Removes the staging folders of jobs that ended with no join to take them (cancelled or
    /// failed while they rendered), and forgets every job that ended.
    func forgetEnded() throws {
        let met = Array(outputs.keys)
        for job in try store.finishedJobs(among: met) {
            let taken = joined.withLock { $0.remove(job) != nil }
            guard let destination = outputs.removeValue(forKey: job) ?? nil, !taken else {
                pending.withLock { _ = $0.removeValue(forKey: job) }
                continue
            }
            // After the writes under way, which would make the folder again; counted among the
            // job's writes, so a join that starts meanwhile waits for it, and skipped if one has.
            let pending = self.pending
            let joined = self.joined
            enqueue(job: job) {
                if !joined.withLock({ $0.contains(job) }) {
                    try? FileManager.default.removeItem(
                        at: FrameFiles.staging(of: destination, owner: Self.owner(of: job)))
                }
                pending.withLock { _ = $0.removeValue(forKey: job) }
            }
        }
    }

    private func output(of job: Int64) throws -> URL? {
        if let known = outputs[job] { return known }
        var output: URL?
        if let record = try store.job(job), record.container == .frames,
            outputRoot?.problem(with: record.outputPath) == nil
        {
            output = URL(fileURLWithPath: record.outputPath)
        }
        outputs[job] = output
        return output
    }

    /// Runs `work` on the staging thread: one at a time in order, at a low priority, the
    /// thread started when work comes and ended when there is none; counted among `job`'s
    /// writes, which its join waits for.
    private func enqueue(job: Int64, _ work: @escaping () -> Void) {
        let group = pending.withLock { groups in
            let group = groups[job] ?? DispatchGroup()
            groups[job] = group
            return group
        }
        group.enter()
        let start = queue.withLock { queue -> Bool in
            queue.work.append {
                work()
                group.leave()
            }
            defer { queue.draining = true }
            return !queue.draining
        }
        guard start else { return }
        Thread { [self] in
            ThreadPriority.lower()
            while let next = queue.withLock({ queue -> (() -> Void)? in
                guard !queue.work.isEmpty else {
                    queue.draining = false
                    return nil
                }
                return queue.work.removeFirst()
            }) {
                next()
            }
        }.start()
    }
}
