/// Which cues an item shows on which output frames: the one rule burn-in and the soft stream
/// share. Cue `c` is shown on output frame `n` iff `t = n / fps` lies in the item,
/// `at <= t < at + duration`, and the media time the item shows there, `s(t)` (its source
/// range and speed, or its time map), lies in the cue's `[start, end)`. A frame's cues depend
/// on `n` alone, so no chunking changes them.
public struct CaptionSchedule: Sendable {
    /// A cue's frames on the output: one run for a forward item; a time map that turns back
    /// shows a cue again in another run.
    public struct Run: Sendable, Hashable {
        public var cue: Int
        /// Output frames `[first shown, last shown + 1)`.
        public var frames: Range<Int64>

        public init(cue: Int, frames: Range<Int64>) {
            self.cue = cue
            self.frames = frames
        }
    }

    public let item: Item
    public let cues: [CaptionCue]
    public let fps: Rational
    /// The latest end of the cues before each index, to stop a search early.
    private let latestEnd: [Rational]

    /// `cues` ordered by start, as `CaptionFileParser` returns them.
    public init(item: Item, cues: [CaptionCue], fps: Rational) {
        self.item = item
        self.cues = cues
        self.fps = fps
        var latest: [Rational] = []
        var running = Rational(-1)
        for cue in cues {
            running = Rational.max(running, cue.end)
            latest.append(running)
        }
        latestEnd = latest
    }

    /// The output frames the item covers.
    public var frames: Range<Int64> {
        let first = (item.at * fps).ceil
        return first..<max(first, (item.end * fps).ceil)
    }

    /// The indices of the cues shown on output frame `n`, in start order.
    public func cues(onFrame n: Int64) -> [Int] {
        let time = Rational(n) / fps
        guard item.at <= time, time < item.end else { return [] }
        let media = item.sourceTime(at: time)
        // The cues starting at or before `media`, then back while an earlier one may still run.
        var low = 0
        var high = cues.count
        while low < high {
            let middle = (low + high) / 2
            if cues[middle].start <= media { low = middle + 1 } else { high = middle }
        }
        var shown: [Int] = []
        var index = low - 1
        while index >= 0, media < latestEnd[index] {
            if media < cues[index].end { shown.append(index) }
            index -= 1
        }
        return shown.reversed()
    }

    /// Every cue's runs of frames, ordered by first frame (then by cue).
    public func runs() -> [Run] {
        var open: [Int: Int64] = [:]
        var runs: [Run] = []
        var previous: Set<Int> = []
        for n in frames {
            let now = Set(cues(onFrame: n))
            for cue in now.subtracting(previous) { open[cue] = n }
            for cue in previous.subtracting(now) {
                runs.append(Run(cue: cue, frames: open.removeValue(forKey: cue)!..<n))
            }
            previous = now
        }
        for cue in previous { runs.append(Run(cue: cue, frames: open[cue]!..<frames.upperBound)) }
        return runs.sorted { ($0.frames.lowerBound, $0.cue) < ($1.frames.lowerBound, $1.cue) }
    }
}
