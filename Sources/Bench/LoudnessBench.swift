import FarmCore
import FarmRender
import Foundation

/// What a loudness target costs a programme's sound: its audio blocks mixed and encoded as
/// they are (the baseline), against the same blocks after the loudness passes (every block
/// measured, and measured again through the limiter while it acts) and encoded with the gain
/// and the limiter. Both on `threads` threads, as a farm spreads them, in one invocation.
enum LoudnessBench {
    static func run(_ loaded: LoadedProject, threads: Int) throws {
        guard loaded.project.export.audio.loudness != nil else {
            throw BenchError("--loudness needs a project with export.audio.loudness")
        }
        var plain = loaded
        plain.project.export.audio.loudness = nil
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("farm-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let blocks = loaded.project.audioBlocks()
        let clock = ContinuousClock()

        func encode(_ project: LoadedProject, gain: ProgrammeGain?) throws -> Duration {
            var render = ChunkedRender(loaded: project, workDirectory: scratch)
            render.durable = false
            render.programmeGain = gain
            let chunked = render
            return try clock.measure {
                try TaskPool.run(blocks.count, threads: threads) { index in
                    _ = try chunked.renderAudioBlock(blocks[index])
                }
            }
        }

        let baseline = try encode(plain, gain: nil)
        let render = ChunkedRender(loaded: loaded, workDirectory: scratch).samples
        var settled: (gain: ProgrammeGain, passes: Int)?
        let measuring = try clock.measure {
            settled = try LoudnessPass.passes(loaded: loaded, render: render) { trial in
                let measured = Locked<[BlockLoudness]>([])
                try TaskPool.run(blocks.count, threads: threads) { index in
                    let block = try LoudnessPass.measure(
                        loaded: loaded, block: blocks[index], render: render, trial: trial)
                    measured.withLock { $0.append(block) }
                }
                return measured.withLock { $0 }
            }
        }
        let gain = settled?.gain
        let passes = settled?.passes ?? 0
        let normalized = try encode(loaded, gain: gain)
        let seconds = Double(render.count) / Double(loaded.project.output.audio.sampleRate)
        let codec = loaded.project.export.audio.codec.rawValue
        print(
            "loudness benchmark: \(String(format: "%.0f", seconds)) s of sound, \(blocks.count) blocks, \(codec), "
                + "\(threads) threads")
        let base = milliseconds(baseline)
        let total = milliseconds(measuring) + milliseconds(normalized)
        print(String(format: "  mix + encode, no target (baseline):  %7.2f s", base / 1000))
        print(String(format: "  loudness passes (%d):                 %7.2f s", passes, milliseconds(measuring) / 1000))
        print(String(format: "  mix + gain + limiter + encode:       %7.2f s", milliseconds(normalized) / 1000))
        print(
            String(
                format: "  with the target, all told:           %7.2f s  (%.2fx the baseline)", total / 1000,
                total / base))
    }
}
