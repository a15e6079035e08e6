/// A half-open run of output frames `[start, end)`: how a worker reports which frames of its
/// chunk are black, and how the QC merges them (`QCReport.blacks` is in seconds).
public struct FrameRun: Codable, Sendable, Hashable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// The runs of `true` in `flags`, the first flag being frame `first`.
    public static func runs(of flags: [Bool], from first: Int64) -> [FrameRun] {
        var runs: [FrameRun] = []
        var start: Int64?
        for (offset, flag) in (flags + [false]).enumerated() {
            let frame = first + Int64(offset)
            if flag, start == nil { start = frame }
            if !flag, let begun = start {
                runs.append(FrameRun(start: begun, end: frame))
                start = nil
            }
        }
        return runs
    }

    /// `runs` moved by `frames`: a chunk's runs from its first frame and back.
    public static func shifted(_ runs: [FrameRun], by frames: Int64) -> [FrameRun] {
        runs.map { FrameRun(start: $0.start + frames, end: $0.end + frames) }
    }

    /// One flag per frame of `frames`: whether some run holds it.
    public static func flags(_ runs: [FrameRun], over frames: Range<Int64>) -> [Bool] {
        var flags = [Bool](repeating: false, count: frames.count)
        for run in runs {
            let start = max(run.start, frames.lowerBound)
            let end = min(run.end, frames.upperBound)
            guard start < end else { continue }
            for frame in start..<end { flags[Int(frame - frames.lowerBound)] = true }
        }
        return flags
    }
}
