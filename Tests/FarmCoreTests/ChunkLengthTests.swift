import FarmCore
import Testing

@Suite struct ChunkLengthTests {
    /// The projects of BENCHMARKS.md: fewer, longer chunks where the rounds still come out
    /// even, the eight-a-worker length where longer ones would leave a worker idle.
    @Test func picksTheLengthWhoseRoundsFinishSoonest() {
        #expect(ChunkLength.choose(duration: 60, workers: 2) == 8)  // the demo: 8 chunks, not 30
        #expect(ChunkLength.choose(duration: 10, workers: 2) == 2)  // the bar project
        #expect(ChunkLength.choose(duration: 300, workers: 2) == 16)  // 32 s would end on one worker
        #expect(ChunkLength.choose(duration: 300, workers: 16) == 4)  // 75 chunks, not 150
        #expect(ChunkLength.choose(duration: 7200, workers: 2) == 512)  // 15 chunks: 8 and 7
        #expect(ChunkLength.choose(duration: 0.5, workers: 4) == 2)
    }

    /// Whatever the timeline and workers: a power of two of at least 2 s, no shorter than
    /// eight chunks a worker would give, and never fewer than four a worker unless that is
    /// the shortest length already.
    @Test func staysOnTheGridBetweenFourAndEightChunksAWorker() {
        for workers in [1, 2, 3, 7, 16, 50] {
            for duration in stride(from: 1.0, through: 20_000, by: 37.3) {
                let length = ChunkLength.choose(duration: duration, workers: workers)
                #expect(length >= 2 && length & (length - 1) == 0, "\(duration) s, \(workers): \(length)")
                var shortest: Int64 = 2
                while Double(shortest * 2) <= duration / Double(workers * 8) { shortest *= 2 }
                #expect(length >= shortest, "\(duration) s, \(workers): \(length) < \(shortest)")
                let chunks = Int((duration / Double(length)).rounded(.up))
                #expect(length == shortest || chunks >= 4 * workers, "\(duration) s, \(workers): \(chunks)")
            }
        }
    }

    /// The model: chunks go round the workers, the last round may hold one short chunk, and
    /// each round adds a chunk's fixed cost.
    @Test func finishesWhenTheLastRoundDoes() {
        // 60 s in 4 s chunks on 2 workers: 15 chunks, 8 rounds, the last one chunk alone.
        #expect(ChunkLength.finish(duration: 60, length: 4, workers: 2) == 32 + 8 * ChunkLength.overhead)
        // 62 s in 8 s chunks: 8 chunks, the last 6 s, beside a full one.
        #expect(ChunkLength.finish(duration: 62, length: 8, workers: 2) == 32 + 4 * ChunkLength.overhead)
        // 49 s: 7 chunks, the last round one 1 s chunk alone.
        #expect(ChunkLength.finish(duration: 49, length: 8, workers: 2) == 25 + 4 * ChunkLength.overhead)
    }
}
