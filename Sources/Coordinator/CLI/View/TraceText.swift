import FarmCore
import Foundation

/// `farm trace`'s text: phases, a row per worker slot along the job's time, the tail.
enum TraceText {
    static func text(_ trace: JobTrace, width: Int) -> String {
        let summary = trace.summary
        var lines = ["job \(trace.job) trace: \(summary.attemptsTraced) of \(trace.attempts.count) attempts traced"]
        guard summary.attemptsTraced > 0 else {
            lines.append("  no attempt of this job was accepted by a coordinator that records traces")
            return lines.joined(separator: "\n")
        }
        let phases = summary.phases
        let total = max(phases.total, 1e-9)
        let share = { (seconds: Double) in String(format: "%8.3f s %5.1f%%", seconds, 100 * seconds / total) }
        lines.append("  phases, added over the attempts (sent to accepted: \(String(format: "%.3f s", total)))")
        lines.append("    delivering \(share(phases.delivering))   sent until the worker had it")
        lines.append("    waiting    \(share(phases.waiting))   held on the worker until a slot took it")
        lines.append("    rendering  \(share(phases.rendering))")
        lines.append("    uploading  \(share(phases.uploading))   beside the next render")
        lines.append("    verifying  \(share(phases.verifying))   on the coordinator, beside the renders")
        lines.append("    accepting  \(share(phases.accepting))")
        let end = max(summary.lastAccepted ?? 0, summary.finished ?? 0, 1e-9)
        lines.append(String(format: "  worker slots (0 to %.2f s from the first assignment; # rendering)", end))
        for slot in summary.slots {
            var row = [Character](repeating: ".", count: width)
            for render in slot.renders {
                let from = Int((render.start / end * Double(width)).rounded(.down))
                let to = max(from + 1, Int((render.end / end * Double(width)).rounded(.up)))
                for column in max(0, from)..<min(width, to) { row[column] = "#" }
            }
            let idle =
                slot.idleWhileQueuedGaps == 0
                ? "" : String(format: ", idle %.3f s while work was queued", slot.idleWhileQueued)
            lines.append(
                String(
                    format: "    %@ %@ %5.1f%% busy until the last render began, %.3f s rendering%@",
                    "\(slot.worker)#\(slot.lane)".padding(toLength: 18, withPad: " ", startingAt: 0), String(row),
                    100 * slot.busyUntilLastStart, slot.rendering, idle))
        }
        let at = { (seconds: Double?) in seconds.map { String(format: "%.3f s", $0) } ?? "-" }
        lines.append("  tail")
        lines.append("    last render began \(at(summary.lastRenderStart)), ended \(at(summary.lastRenderEnd))")
        lines.append("    last accepted     \(at(summary.lastAccepted))")
        if let started = summary.joinStarted, let joined = summary.joined, let checked = summary.checked {
            lines.append(
                String(
                    format: "    join              %.3f s (from %.3f s), QC %.3f s", joined - started, started,
                    checked - joined))
        }
        lines.append("    finished          \(at(summary.finished))")
        if let startup = summary.startup {
            lines.append(String(format: "  submitted %.3f s before the first assignment", startup))
        }
        return lines.joined(separator: "\n")
    }
}
