import FarmCore
import FarmStore
import Logging

/// Where `WorkerSessions` sends the progress its workers report.
package protocol ProgressSink: AnyObject {
    func write(_ records: [FarmStore.ProgressRecord])
}

/// Progress written on a connection of its own. Progress feeds only what operators watch (no
/// verdict, lease or claim reads it, and an accepted attempt's count is written by its
/// acceptance), while a thousand workers' batch holds the database for about 20 ms: time the
/// loop, which hands out every freed slot, must not spend waiting (BENCHMARKS.md).
///
/// Reports gathered while a write runs are merged, the latest of each attempt kept, and go in the
/// next write; a write that fails drops its batch, which the next reports replace.
package final class ProgressWriter: ProgressSink, @unchecked Sendable {
    private let pending = Locked<[AttemptKey: FarmStore.ProgressRecord]>([:])
    private var background: BackgroundPass!

    package init(database: String, logger: Logger) {
        background = BackgroundPass(name: "progress", database: database, logger: logger) { [unowned self] in
            try writePending($0)
        }
    }

    package func write(_ records: [FarmStore.ProgressRecord]) {
        let waiting = pending.withLock { pending -> Bool in
            for record in records { pending[record.key] = record }
            return !pending.isEmpty
        }
        // Reports that arrive while a pass ends go with the next tick's poke.
        if waiting { background.poke() }
    }

    /// Writes what is pending and waits for it (the coordinator is stopping): reports merged
    /// just as a pass ended are written too.
    package func finish() {
        background.finish()
        while !pending.current.isEmpty {
            background.poke()
            background.finish()
        }
    }

    private func writePending(_ store: FarmStore) throws {
        while true {
            let batch = pending.withLock { pending -> [FarmStore.ProgressRecord] in
                defer { pending.removeAll(keepingCapacity: true) }
                return Array(pending.values)
            }
            if batch.isEmpty { return }
            try store.recordProgress(batch)
        }
    }
}
