import Foundation

/// The tail of what a worker logged for one attempt: its own lines and FFmpeg's, from any
/// thread, the last `mostLines` lines of at most `mostBytes` bytes kept. It travels with the
/// attempt's result or failure, so `farm logs JOB --chunk N` shows what the worker saw, as
/// Flamenco serves a task's log tail.
public final class AttemptLog: @unchecked Sendable {
    public static let mostLines = 200
    public static let mostBytes = 64 << 10
    /// A longer line is cut here: one runaway line cannot push out the others.
    public static let longestLine = 2048

    private let lines = Locked<(kept: [String], bytes: Int)>(([], 0))
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    public init() {
        started = clock.now
    }

    /// Adds a line, stamped with the seconds since the attempt began.
    public func append(_ text: String, level: String = "info") {
        let seconds = String(format: "%7.2f", (clock.now - started) / .seconds(1))
        var line = "\(seconds) \(level) \(text)"
        if line.utf8.count > Self.longestLine {
            line = String(decoding: line.utf8.prefix(Self.longestLine), as: UTF8.self)
        }
        lines.withLock { state in
            state.kept.append(line)
            state.bytes += line.utf8.count
            while state.kept.count > Self.mostLines || state.bytes > Self.mostBytes {
                state.bytes -= state.kept.removeFirst().utf8.count
            }
        }
    }

    /// The lines kept, oldest first.
    public var tail: [String] { lines.withLock { $0.kept } }
}
