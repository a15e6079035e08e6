import FarmCore
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How a watched job is shown.
protocol JobDisplay {
    /// A refresh of a live job, with the measured rate and the ETA it gives; `reused` of its
    /// done chunks came from the segment cache.
    mutating func show(_ detail: JobDetail, reused: Int, fps: Double?, eta: Double?)
    /// The job ended: the last picture and the summary.
    mutating func finish(_ detail: JobDetail, reused: Int)
    /// Whether a refresh lists every chunk (JSON lines do); a view needs only the chunks
    /// rendering or failed, which is all a refresh of a 100,000-chunk job should read.
    var showsEveryChunk: Bool { get }
}

extension JobDisplay {
    var showsEveryChunk: Bool { false }
}

/// Picks the display for a stream: JSON lines when asked, a view redrawn in place on a
/// terminal, one plain line per change otherwise.
func makeJobDisplay(json: Bool, handle: FileHandle) -> any JobDisplay {
    if json { return JSONLinesJobDisplay() }
    if isatty(handle.fileDescriptor) == 1 { return TerminalJobDisplay(handle: handle) }
    return PlainJobDisplay(handle: handle)
}

/// Redraws the overall bar, a bar per running chunk, the chunk counts and the last error in
/// place, moving the cursor back over what it drew last time.
struct TerminalJobDisplay: JobDisplay {
    let handle: FileHandle
    /// Running chunks shown with a bar of their own; the rest are counted.
    var maximumChunkBars = 12
    private var drawnLines = 0

    init(handle: FileHandle) {
        self.handle = handle
    }

    mutating func show(_ detail: JobDetail, reused: Int, fps: Double?, eta: Double?) {
        draw(lines(detail, reused: reused, fps: fps, eta: eta))
    }

    mutating func finish(_ detail: JobDetail, reused: Int) {
        draw(lines(detail, reused: reused, fps: detail.job.fps, eta: nil))
        handle.writeUnlessClosed(Data((StatusText.summary(detail, reused: reused) + "\n").utf8))
    }

    private mutating func draw(_ lines: [String]) {
        let (width, height) = terminalSize
        // Every line must take exactly one row, or moving back over them would miss: control
        // characters (a multi-line error) become spaces, lines are cut to the width, and a short
        // terminal gets only the lines that fit (the first ones: the job and its bar).
        let shown = lines.prefix(max(1, height - 1)).map { line in
            String(String(line.map { $0.isNewline || $0 == "\t" ? " " : $0 }).prefix(width - 1))
        }
        var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)A\r\u{1B}[J" : ""
        for line in shown { text += line + "\n" }
        handle.writeUnlessClosed(Data(text.utf8))
        drawnLines = shown.count
    }

    private func lines(_ detail: JobDetail, reused: Int, fps: Double?, eta: Double?) -> [String] {
        let job = detail.job
        var lines = [
            "job \(job.id) \(job.name) · \(StatusText.state(job)) · priority \(job.priority)",
            "\(Format.bar(job.percent / 100, width: 30)) \(StatusText.progress(job))  "
                + "\(job.framesDone)/\(job.frameCount) frames  \(StatusText.fps(fps)) fps  ETA \(StatusText.eta(eta))",
        ]
        let running = detail.chunks.filter { $0.state == .running }
        for chunk in running.prefix(maximumChunkBars) {
            let frames = chunk.end - chunk.start
            let framesDone = chunk.framesDone ?? 0
            let fraction = Double(framesDone) / Double(max(frames, 1))
            // A worker holds one chunk beyond its slots, to start it the moment the last one ends.
            // An audio block reports no progress until it is done: its span says what it mixes.
            let figures =
                chunk.kind == .audio
                ? "mixing \(StatusText.range(chunk))"
                : chunk.kind == .loudness
                    ? "measuring \(StatusText.range(chunk))"
                    : framesDone == 0
                        ? (chunk.fps == nil ? "waiting to start" : "starting: the encoder has no frame out yet")
                        : "\(Format.bar(fraction, width: 12)) \(framesDone)/\(frames)  \(StatusText.fps(chunk.fps)) fps"
            lines.append(
                "  \(StatusText.chunkName(chunk.kind, chunk.index).padding(toLength: 15, withPad: " ", startingAt: 0))"
                    + " \(StatusText.range(chunk).padding(toLength: 13, withPad: " ", startingAt: 0))"
                    + " \((chunk.worker ?? "-").padding(toLength: 16, withPad: " ", startingAt: 0)) \(figures)")
        }
        if running.count > maximumChunkBars {
            lines.append("  … and \(running.count - maximumChunkBars) more running")
        }
        lines.append("chunks: \(StatusText.counts(job.chunks, reused: reused))")
        if let placement = StatusText.placement(job) { lines.append(placement) }
        if let waiting = job.waitingFor { lines.append("waiting: \(waiting)") }
        if let warning = job.warning { lines.append("warning: \(warning)") }
        if let error = detail.errors.first { lines.append("last error: \(StatusText.error(error))") }
        return lines
    }

    /// Columns and rows of the terminal (100 × 40 if it does not say).
    private var terminalSize: (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(handle.fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (100, 40)
        }
        return (max(Int(size.ws_col), 2), Int(size.ws_row))
    }
}

/// For logs and pipes: a line when the state, the chunk counts or the newest error change,
/// and a progress line at most every five seconds in between.
struct PlainJobDisplay: JobDisplay {
    let handle: FileHandle
    private var lastKey = ""
    private var lastError: AttemptStatus?
    private var lastWarning: String?
    private var lastWaiting: String?
    private var lastLine = ContinuousClock.now - .seconds(60)

    init(handle: FileHandle) {
        self.handle = handle
    }

    mutating func show(_ detail: JobDetail, reused: Int, fps: Double?, eta: Double?) {
        let job = detail.job
        if let error = detail.errors.first, error != lastError {
            lastError = error
            write("job \(job.id) error: \(StatusText.error(error))")
        }
        if job.warning != lastWarning {
            lastWarning = job.warning
            if let warning = job.warning { write("job \(job.id) warning: \(warning)") }
        }
        if job.waitingFor != lastWaiting {
            lastWaiting = job.waitingFor
            if let waiting = job.waitingFor { write("job \(job.id) waiting: \(waiting)") }
        }
        let counts = StatusText.counts(job.chunks, reused: reused)
        let key = "\(StatusText.state(job)) \(counts)"
        guard key != lastKey || ContinuousClock.now - lastLine >= .seconds(5) else { return }
        lastKey = key
        lastLine = .now
        write(
            "job \(job.id) \(StatusText.state(job)) \(StatusText.progress(job)) "
                + "\(job.framesDone)/\(job.frameCount) frames "
                + "\(StatusText.fps(fps)) fps ETA \(StatusText.eta(eta)) | \(counts)")
    }

    mutating func finish(_ detail: JobDetail, reused: Int) {
        write(StatusText.summary(detail, reused: reused))
    }

    private func write(_ line: String) { handle.writeUnlessClosed(Data((line + "\n").utf8)) }
}

/// `--json`: one JobDetail object per line at every refresh, the last one the finished job.
struct JSONLinesJobDisplay: JobDisplay {
    var showsEveryChunk: Bool { true }
    mutating func show(_ detail: JobDetail, reused: Int, fps: Double?, eta: Double?) {
        try? JSONOutput.print(detail, lines: true)
    }
    mutating func finish(_ detail: JobDetail, reused: Int) { try? JSONOutput.print(detail, lines: true) }
}
