import FarmCore
import FarmRender
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Shows render progress on standard error: a bar redrawn in place on a terminal, a plain line
/// every few seconds otherwise (logs and CI).
final class ProgressMeter {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastDraw: Double = -1
    private var drewBar = false
    private(set) var elapsed: Double = 0

    func update(_ progress: RenderProgress) {
        elapsed = Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18
        let done = progress.framesDone == progress.frameCount
        let interval = isTerminal ? 0.1 : 2.0
        guard done || elapsed - lastDraw >= interval else { return }
        lastDraw = elapsed
        let fps = Double(progress.framesDone) / max(elapsed, 0.001)
        let remaining = Double(progress.frameCount - progress.framesDone) / max(fps, 0.001)
        let fraction = Double(progress.framesDone) / Double(max(progress.frameCount, 1))
        let figures =
            "\(progress.framesDone)/\(progress.frameCount) frames  \(Format.rate(fps)) fps  "
            + "ETA \(Format.clock(remaining))"
        if isTerminal {
            FileHandle.standardError.writeUnlessClosed(
                Data("\r\u{1B}[2K\(Format.bar(fraction, width: 30)) \(Int(fraction * 100))%  \(figures)".utf8))
            drewBar = true
        } else {
            FileHandle.standardError.writeUnlessClosed(Data("render: \(Int(fraction * 100))%  \(figures)\n".utf8))
        }
    }

    func finish() {
        if drewBar { FileHandle.standardError.writeUnlessClosed(Data("\n".utf8)) }
        drewBar = false
    }
}

/// Human-readable numbers for progress and summaries.
enum Format {
    /// "1 audio block", "6 audio blocks".
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "--:--" }
        let total = Int(seconds.rounded())
        return total >= 3600
            ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%d:%02d", total / 60, total % 60)
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// A bar of `width` cells filled to `fraction`.
    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = max(0, min(width, Int(fraction * Double(width))))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    static func rate(_ value: Double) -> String { String(format: "%.1f", value) }

    static func duration(_ value: Rational) -> String { String(format: "%.3f s", value.seconds) }

    static func bytes(_ count: Int) -> String {
        count >= 1 << 20
            ? String(format: "%.1f MB", Double(count) / 1e6) : String(format: "%.1f kB", Double(count) / 1e3)
    }
}
