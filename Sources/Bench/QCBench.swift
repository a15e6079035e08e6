import FarmCore
import FarmRender
import Foundation

/// What the QC pass's sound costs on the coordinator after the join: a file's sound decoded
/// and measured with every oversampled value computed (the baseline) against only those that
/// could raise the true peak, alternating, in one invocation; the two reports must agree.
enum QCBench {
    static func run(_ url: URL, rounds: Int) throws {
        let clock = ContinuousClock()
        var every: [Double] = []
        var bounded: [Double] = []
        var reports: [QCReport.Audio?] = []
        for _ in 0..<rounds {
            var report: QCReport.Audio?
            every.append(milliseconds(try clock.measure { report = try OutputQC.sound(of: url, exhaustive: true) }))
            reports.append(report)
            bounded.append(milliseconds(try clock.measure { report = try OutputQC.sound(of: url) }))
            reports.append(report)
        }
        guard let first = reports.first, let sound = first else { throw BenchError("\(url.path) has no sound") }
        guard reports.allSatisfy({ $0 == first }) else { throw BenchError("the reports differ: \(reports)") }
        let seconds = Double(sound.samples) / Double(sound.sampleRate)
        print(
            "QC sound benchmark: \(String(format: "%.1f", seconds)) s of \(sound.codec), \(sound.channels) channels, "
                + "\(rounds) rounds; true peak \(sound.truePeak.map { String(format: "%.2f", $0) } ?? "-") dBTP")
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let list = { (values: [Double]) in values.map { String(format: "%.0f", $0) }.joined(separator: ", ") }
        print("  every oversampled value (baseline): \(list(every)) ms")
        print("  only where the peak could rise:     \(list(bounded)) ms")
        print(String(format: "  median ratio: %.2f", median(bounded) / median(every)))
    }
}
