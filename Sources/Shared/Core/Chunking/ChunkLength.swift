import Foundation

/// The chunk length `farm render` picks for its own farm when none is asked for: 2, 4, 8 …
/// seconds. A length, never a count: chunks then sit on a grid from the timeline's start, so
/// an edit that makes the timeline longer or shorter keeps every earlier chunk where it was,
/// and the segment cache reuses them (`ChunkKeys`).
///
/// Every chunk has a fixed cost: its sources' decoders opened and run from the keyframe before
/// its first frame, an encoder started, an upload checked and accepted. On the 60 s demo with
/// two workers, 30 chunks of 2 s took a fifth more CPU than 8 of 8 s (BENCHMARKS.md), most of
/// it decoding again what the chunk before had decoded. Fewer chunks leave the last round
/// short instead: one worker renders the last chunk while the others idle. So of the lengths
/// no shorter than the one giving every worker eight chunks, and still giving each at least
/// four (a chunk lost or slow costs little of the whole), the one whose rounds finish soonest
/// once each chunk's fixed cost is counted.
public enum ChunkLength {
    /// A chunk's fixed cost in seconds of timeline: on the demo a chunk cost about 0.35 s of
    /// CPU more, where a second of its timeline takes about 0.6 s.
    package static let overhead = 0.5

    /// Seconds per chunk for a timeline of `duration` seconds on `workers` identical workers.
    public static func choose(duration: Double, workers: Int) -> Int64 {
        let workers = max(1, workers)
        var shortest: Int64 = 2
        while Double(shortest * 2) <= duration / Double(workers * 8) { shortest *= 2 }
        var best = shortest
        var length = shortest
        while chunks(duration, length * 2) >= 4 * workers {
            length *= 2
            if finish(duration: duration, length: length, workers: workers)
                < finish(duration: duration, length: best, workers: workers)
            {
                best = length
            }
        }
        return best
    }

    /// When the last chunk ends, counting each chunk's fixed cost, with chunks of `length`
    /// seconds (the last one shorter) dealt in order to whichever worker is free: equal chunks
    /// go round the workers, so it takes as many rounds as chunks over workers.
    package static func finish(duration: Double, length: Int64, workers: Int) -> Double {
        let count = chunks(duration, length)
        guard count > 0 else { return 0 }
        let rounds = (count + workers - 1) / workers
        let inLastRound = count - (rounds - 1) * workers
        let last = duration - Double(count - 1) * Double(length)
        let rendering = Double(rounds - 1) * Double(length) + (inLastRound > 1 ? Double(length) : last)
        return rendering + Double(rounds) * overhead
    }

    private static func chunks(_ duration: Double, _ length: Int64) -> Int {
        Int((duration / Double(length)).rounded(.up))
    }
}
