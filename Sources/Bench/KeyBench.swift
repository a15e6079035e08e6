import FarmCore
import Foundation

/// `farm-bench --keys PROJECT.json [CHUNK_FRAMES]`: what a submission spends on its chunks'
/// keys (`ChunkKeys`), against the same keys hashed from JSONEncoder's sorted-keys text with
/// String(format:) hex (how they were made before `CanonicalEncoder`), in the same run.
enum KeyBench {
    static func run(_ project: Project, chunkFrames: Int64) throws {
        let chunks = project.videoChunks(.frames(chunkFrames))
        let blocks = project.audioBlocks()
        let pins = try MediaPin.pins(of: project)
        let container = project.export.container
        let clock = ContinuousClock()

        // The baseline first: the same materials, each kept until its key is made.
        var start = clock.now
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var baselineKeys = 0
        let allMaterials =
            ChunkKeys.materials(of: project, work: chunks, container: container, pins: pins)
            + ChunkKeys.materials(of: project, work: blocks, container: container, pins: pins)
        for material in allMaterials {
            let hasher = SHA256()
            hasher.update(try encoder.encode(material))
            baselineKeys += hasher.finishFormatted().isEmpty ? 0 : 1
        }
        let baseline = clock.now - start

        start = clock.now
        let video = ChunkKeys.keys(of: project, work: chunks, container: container, pins: pins)
        let audio = ChunkKeys.keys(of: project, work: blocks, container: container, pins: pins)
        let current = clock.now - start

        // What the keys are made from, built alone: the rest of the time is hashing.
        start = clock.now
        let built =
            ChunkKeys.materials(of: project, work: chunks, container: container, pins: pins).count
            + ChunkKeys.materials(of: project, work: blocks, container: container, pins: pins).count
        let materials = clock.now - start

        let count = video.count + audio.count
        guard count == baselineKeys, Set(video + audio).count == count else {
            throw KeyBenchError(description: "keys: \(count) made, \(baselineKeys) in the baseline, or two alike")
        }
        let perChunk = { (duration: Duration) in milliseconds(duration) * 1000 / Double(count) }
        print("chunks: \(chunks.count) video, \(blocks.count) audio blocks")
        print(
            String(
                format: "JSONEncoder keys (baseline): %.2f s, %.1f µs a chunk", milliseconds(baseline) / 1000,
                perChunk(baseline)))
        print(
            String(
                format: "ChunkKeys.keys:              %.2f s, %.1f µs a chunk", milliseconds(current) / 1000,
                perChunk(current)))
        print(String(format: "  of which materials alone:  %.2f s (%d)", milliseconds(materials) / 1000, built))
        print(
            String(
                format: "ratio: %.2fx faster; per 100,000 chunks %.2f s", perChunk(baseline) / perChunk(current),
                perChunk(current) / 10))
    }
}

struct KeyBenchError: Error, CustomStringConvertible {
    var description: String
}

extension SHA256 {
    /// The hex digest as it was written before: String(format:) a byte.
    func finishFormatted() -> String {
        finishBytes().map { String(format: "%02x", $0) }.joined()
    }
}
