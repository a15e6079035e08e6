import FarmCore
import FarmDataFolder
import FarmRender
import FarmStore
import Foundation
import Logging

/// The middle of a loudness target's two passes: once every loudness block of a job is in,
/// combines their figures over the whole programme (`ProgrammeLoudness`), records the one gain
/// every audio block applies, and lets the job's audio blocks go to the workers.
///
/// The figures are summed in block order from the accepted files, so the gain is the same
/// however the blocks were spread and whichever worker measured each.
final class LoudnessSettler {
    private let store: FarmStore
    private let logger: Logger
    private let dataDirectory: URL

    init(store: FarmStore, logger: Logger, dataDirectory: URL) {
        self.store = store
        self.logger = logger
        self.dataDirectory = dataDirectory
    }

    /// Settles every job among `jobs` (all when nil) whose loudness blocks are all done.
    func settle(_ jobs: Set<Int64>? = nil) throws {
        for id in try store.jobsAwaitingGain(among: jobs.map(Array.init)) {
            guard let job = try store.job(id), let project = try store.projectOf(job: id) else { continue }
            let folder = JobFolder(dataDirectory: dataDirectory, job: id)
            var measured: [BlockLoudness] = []
            var missing: [Int] = []
            for block in try store.loudnessBlocks(job: id) {
                let url = folder.result(kind: .loudness, index: block.index)
                if let data = try? Data(contentsOf: url),
                    let figures = try? JSONDecoder().decode(BlockLoudness.self, from: data)
                {
                    measured.append(figures)
                } else {
                    missing.append(block.index)
                }
            }
            guard missing.isEmpty else {
                // Lost after acceptance (a retry removed the folder): measured again.
                logger.warning("job \(id): \(missing.count) loudness block(s) missing; measuring them again")
                try store.requeue(job: id, chunks: missing.map { (.loudness, $0) })
                continue
            }
            let target: LoudnessTarget
            let lossy: Bool
            do {
                let parsed = try ProjectLoader(mediaRoot: URL(fileURLWithPath: project.mediaRoot))
                    .parse(text: project.text, file: project.file)
                guard let found = parsed.export.audio.loudness else { continue }
                target = found
                lossy = parsed.export.audio.isLossy
            } catch {
                logger.error("job \(id): its project no longer parses: \(error)")
                try store.finish(job: id, error: "the loudness pass could not read the project: \(error)")
                continue
            }
            let trial = try store.trialGain(job: id)
            let (step, programme) = LoudnessPass.step(
                measured, target: target, trial: trial, render: job.samples, sampleRate: job.sampleRate, lossy: lossy)
            let gain: ProgrammeGain
            switch step {
            case .measureAgain(let next):
                let decibels = LoudnessTarget.figure(TruePeakMeter.decibels(next.gain))
                logger.info(
                    """
                    job \(id): the limiter acts at a gain of \(decibels) dB; \
                    measuring the programme through it
                    """)
                try store.measureAgain(job: id, trial: next, blocks: measured.map(\.block))
                continue
            case .settle(let settled): gain = settled
            }
            if try store.settleGain(job: id, gain: gain, loudness: programme) {
                let level = programme.integrated.map { "\(LoudnessTarget.figure($0)) LUFS" } ?? "silent"
                logger.info(
                    """
                    job \(id): programme measured at \(level) over \(measured.count) blocks; \
                    gain \(LoudnessTarget.figure(TruePeakMeter.decibels(gain.gain))) dB toward \
                    \(LoudnessTarget.figure(target.integrated)) LUFS; its audio blocks go out
                    """)
            }
        }
    }
}
