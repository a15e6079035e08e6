import FarmCore
import FarmRender
import Foundation

/// What the QC pass's sound costs on the coordinator after the join: a file's sound decoded
/// and measured in one span on one core (the baseline) against spans of `OutputQC.spanSeconds`
/// on every core, alternating, in one invocation; the two reports must agree (`agree`).
enum QCBench {
    static func run(_ url: URL, rounds: Int) throws {
        let clock = ContinuousClock()
        var whole: [Double] = []
        var spans: [Double] = []
        var reports: [QCReport.Audio?] = []
        for _ in 0..<rounds {
            var report: QCReport.Audio?
            whole.append(milliseconds(try clock.measure { report = try OutputQC.sound(of: url, spanSeconds: 1 << 40) }))
            reports.append(report)
            spans.append(milliseconds(try clock.measure { report = try OutputQC.sound(of: url) }))
            reports.append(report)
        }
        guard let first = reports.first, let sound = first else { throw BenchError("\(url.path) has no sound") }
        guard reports.allSatisfy({ $0.map { agree($0, sound) } ?? false }) else {
            throw BenchError("the reports differ: \(reports)")
        }
        let seconds = Double(sound.samples) / Double(sound.sampleRate)
        print(
            "QC sound benchmark: \(String(format: "%.1f", seconds)) s of \(sound.codec), \(sound.channels) channels, "
                + "\(rounds) rounds, \(ProcessInfo.processInfo.activeProcessorCount) cores; "
                + "true peak \(sound.truePeak.map { String(format: "%.2f", $0) } ?? "-") dBTP")
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let list = { (values: [Double]) in values.map { String(format: "%.0f", $0) }.joined(separator: ", ") }
        print("  one span, one core (baseline):        \(list(whole)) ms")
        print("  spans on every core:                  \(list(spans)) ms")
        print(String(format: "  median ratio: %.2f", median(spans) / median(whole)))
    }

    /// The same report within 0.001 dB and LU, and silences within a millisecond: spans sum
    /// loudness in another order, and an AAC decoder started at a span draws its noise
    /// substitution from another point of its generator than a decode from the start.
    static func agree(_ a: QCReport.Audio, _ b: QCReport.Audio) -> Bool {
        let close = { (x: Double?, y: Double?) in x == y || (x != nil && y != nil && abs(x! - y!) < 0.001) }
        let runs = { (x: [QCReport.Run], y: [QCReport.Run]) in
            x.count == y.count
                && zip(x, y).allSatisfy { abs($0.start - $1.start) < 0.001 && abs($0.end - $1.end) < 0.001 }
        }
        return a.codec == b.codec && a.sampleRate == b.sampleRate && a.channels == b.channels && a.samples == b.samples
            && close(a.integrated, b.integrated) && close(a.loudnessRange, b.loudnessRange)
            && close(a.truePeak, b.truePeak) && close(a.samplePeak, b.samplePeak) && runs(a.silences, b.silences)
    }
}
