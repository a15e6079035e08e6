import FarmCore
import FarmRender
import Foundation

/// A project's whole sound: its audio blocks mixed and encoded on `threads` threads, as a farm
/// would spread them, against mixing alone on one thread (the baseline that shows what the
/// encoder costs), in the same invocation.
enum AudioBench {
    static func run(_ loaded: LoadedProject, threads: Int) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("farm-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var scratchRender = ChunkedRender(loaded: loaded, workDirectory: scratch)
        scratchRender.durable = false
        let chunked = scratchRender
        let blocks = loaded.project.audioBlocks()
        let samples = chunked.samples
        let clock = ContinuousClock()

        let mixer = AudioMixer(loaded: loaded)
        let mixing = try clock.measure {
            var next = samples.lowerBound
            while next < samples.upperBound {
                let count = Int(min(4096, samples.upperBound - next))
                _ = try mixer.mix(from: next, count: count)
                next += Int64(count)
            }
        }

        let rendering = try clock.measure {
            try TaskPool.run(blocks.count, threads: threads) { index in
                _ = try chunked.renderAudioBlock(blocks[index])
            }
        }
        let seconds = Double(samples.count) / Double(loaded.project.output.audio.sampleRate)
        let codec = loaded.project.export.audio.codec.rawValue
        print("audio benchmark: \(String(format: "%.0f", seconds)) s of sound, \(blocks.count) blocks, \(codec)")
        print(
            String(
                format: "  mix only, one thread:          %7.2f s  (%.0fx real time)", milliseconds(mixing) / 1000,
                seconds * 1000 / milliseconds(mixing)))
        print(
            String(
                format: "  mix + encode, %d threads:       %7.2f s  (%.0fx real time)", threads,
                milliseconds(rendering) / 1000, seconds * 1000 / milliseconds(rendering)))
    }
}
