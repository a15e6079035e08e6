import FarmCore
import FarmDataFolder
import FarmRender
import FarmStore
import Foundation
import Logging

/// The QC's sound measured while the pictures still render. Audio blocks are claimed first and
/// are short, so a job's sound is usually all in long before its last chunk; its blocks are
/// then joined alone and measured on a thread of their own, and the QC after the join uses the
/// measure if the output's audio packets hash the same (`OutputQC.MeasuredSound`), which takes
/// the decode of the whole programme's sound off the job's serial tail. Anything else (a block
/// rendered again, a measure that failed) and the QC measures the output itself, as before.
package final class SoundPremeasures {
    private final class Pending: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var measured: OutputQC.MeasuredSound?
    }

    private let store: FarmStore
    private let logger: Logger
    private let dataDirectory: URL
    /// Jobs measured or being measured; an entry goes when its join takes it.
    private let pending = Locked<[Int64: Pending]>([:])

    init(store: FarmStore, logger: Logger, dataDirectory: URL) {
        self.store = store
        self.logger = logger
        self.dataDirectory = dataDirectory
    }

    /// Starts measuring the sound of every job among `jobs` whose audio blocks are all done.
    func start(_ jobs: Set<Int64>) throws {
        let fresh = pending.withLock { held in jobs.filter { held[$0] == nil } }
        for job in try store.jobsWithSoundDone(among: fresh.sorted()) {
            let folder = JobFolder(dataDirectory: dataDirectory, job: job.id)
            let blocks = folder.segments(try store.audioBlocks(job: job.id))
            // Blocks from the segment cache reach the folder only at the join.
            guard blocks.allSatisfy({ FileManager.default.fileExists(atPath: $0.url.path) }) else { continue }
            let entry = Pending()
            pending.withLock { $0[job.id] = entry }
            let logger = self.logger
            let file = folder.url.appendingPathComponent("sound.\(job.container.rawValue)")
            let thread = Thread {
                defer { entry.done.signal() }
                // Behind the coordinator's loop and the renders (the spans' threads too): on a
                // machine of its own with a small share of a core (a cgroup quota), the measure
                // at the same priority held assignments back.
                ThreadPriority.lower()
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    try SegmentJoiner.joinSound(
                        audio: blocks, sampleRate: job.sampleRate, container: job.container, to: file)
                    entry.measured = try OutputQC.measuredSound(of: file)
                    let seconds = String(format: "%.3f", (clock.now - started) / .seconds(1))
                    logger.info("job \(job.id): its sound measured while the pictures render (\(seconds) s)")
                } catch {
                    logger.info("job \(job.id): its sound is measured after the join instead (\(error))")
                }
                try? FileManager.default.removeItem(at: file)
            }
            thread.start()
        }
    }

    /// Drops the measures of jobs that ended with no join to take them (cancelled or failed
    /// while their pictures rendered): a long-serving coordinator keeps none of them.
    func forgetEnded() throws {
        let held = pending.withLock { Array($0.keys) }
        for job in try store.finishedJobs(among: held) {
            pending.withLock { _ = $0.removeValue(forKey: job) }
        }
    }

    /// The job's measured sound, waiting for a measure under way; nil when none was started
    /// or it failed. Called on the join's thread.
    func take(job: Int64) -> OutputQC.MeasuredSound? {
        guard let entry = pending.withLock({ $0.removeValue(forKey: job) }) else { return nil }
        entry.done.wait()
        return entry.measured
    }
}
