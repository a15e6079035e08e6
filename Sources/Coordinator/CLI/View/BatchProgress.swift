import FarmCore
import FarmStore
import Foundation

/// Follows a batch's jobs until each has ended, printing one line per row as it does:
/// `row 3: done out/promo-Oslo.mp4` on standard output, `row 5: failed: …` on standard error.
struct BatchProgress {
    let rows: [Int]
    let jobs: [Int64]
    let outputs: [String]

    /// Each job's final state, in row order; `check` throws when the farm breaks down.
    func follow(_ store: FarmStore, check: () throws -> Void) throws -> [JobState] {
        var ended: [Int64: JobState] = [:]
        var lastCount = -1
        while ended.count < jobs.count {
            try check()
            // One query a turn, however many rows: only those not ended yet.
            let states = try store.states(of: jobs.filter { ended[$0] == nil })
            for (index, job) in jobs.enumerated() where ended[job] == nil {
                guard let status = states[job] else { throw FarmControlError.noSuchJob(job) }
                guard status.state.isFinished else { continue }
                ended[job] = status.state
                if status.state == .done {
                    print("row \(rows[index]): done \(outputs[index])")
                    fflush(stdout)
                } else {
                    let reason = status.error.map { ": \($0)" } ?? ""
                    FarmExit.printError("row \(rows[index]): \(status.state.rawValue)\(reason)")
                }
            }
            if ended.count != lastCount, ended.count < jobs.count {
                lastCount = ended.count
                FileHandle.standardError.writeUnlessClosed(
                    Data("batch: \(ended.count) of \(jobs.count) jobs ended\n".utf8))
            }
            if ended.count < jobs.count { Thread.sleep(forTimeInterval: 0.25) }
        }
        return jobs.map { ended[$0]! }
    }
}
