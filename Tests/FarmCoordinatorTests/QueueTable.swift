import FarmCoordinator
import FarmCore
import FarmStore
import FarmWire

/// A farm database in memory with the store's rules that sessions rely on: a queue handed out
/// in order, leases that belong to one worker, draining workers. It counts claims, so a test
/// can say how many round trips the sessions made.
final class QueueTable: SessionStore {
    var queue: [Int64]
    private(set) var leased: [AttemptKey: String] = [:]
    var draining: Set<String> = []
    private(set) var claims: [[ClaimRequest]] = []
    private(set) var givenBack: [AttemptKey] = []
    private(set) var lost: [String] = []
    /// Every heartbeat recorded, in order.
    private(set) var heartbeats: [FarmStore.HeartbeatReport] = []

    init(chunks: Int) {
        queue = (1...Int64(chunks)).map { $0 }
    }

    func workerSeen(_ info: WorkerInfo, rendering: Bool) throws -> Bool { draining.contains(info.id) }

    func workerLost(_ id: String) throws { lost.append(id) }

    /// Every worker here is this coordinator's own.
    func markSilentWorkersLost(after seconds: Double, besides heard: [String]) throws -> [String] { [] }

    func recordHeartbeats(_ reports: [FarmStore.HeartbeatReport], leaseSeconds: Double) throws
        -> FarmStore.HeartbeatOutcome
    {
        var outcome = FarmStore.HeartbeatOutcome()
        heartbeats += reports
        for report in reports {
            if draining.contains(report.worker.id) { outcome.draining.insert(report.worker.id) }
            let stale = report.holding.filter { leased[$0] != report.worker.id }
            if !stale.isEmpty { outcome.stale[report.worker.id] = stale }
        }
        return outcome
    }

    func recordProgress(_ records: [FarmStore.ProgressRecord]) throws {}

    func leased(to workers: [String]) throws -> [ClaimedChunk] {
        leased.filter { workers.contains($0.value) }.sorted { $0.key.chunk < $1.key.chunk }.map { key, worker in
            Self.chunk(key.chunk, worker: worker)
        }
    }

    /// Leases `chunk` to `worker` behind the sessions' back, as a claim whose answer was lost.
    func leaseUnseen(worker: String) -> AttemptKey {
        let chunk = queue.removeFirst()
        let key = AttemptKey(chunk: chunk, attempt: 1)
        leased[key] = worker
        return key
    }

    static func chunk(_ chunk: Int64, worker: String) -> ClaimedChunk {
        ClaimedChunk(
            worker: worker, key: AttemptKey(chunk: chunk, attempt: 1), job: 1,
            work: .video(Chunk(index: Int(chunk), start: chunk * 10, end: chunk * 10 + 10)), projectText: "{}",
            projectFile: "/p.json", mediaRoot: "/", mediaPins: [:])
    }

    func giveBack(_ key: AttemptKey, reason: String) throws {
        leased[key] = nil
        givenBack.append(key)
        queue.insert(key.chunk, at: 0)
    }

    func claim(_ requests: [ClaimRequest], leaseSeconds: Double) throws -> [ClaimedChunk] {
        claims.append(requests)
        var claimed: [ClaimedChunk] = []
        for request in requests where !draining.contains(request.worker) {
            for _ in 0..<request.count where !queue.isEmpty {
                let chunk = queue.removeFirst()
                leased[AttemptKey(chunk: chunk, attempt: 1)] = request.worker
                claimed.append(Self.chunk(chunk, worker: request.worker))
            }
        }
        return claimed
    }
}

/// The messages the sessions sent, by route.
final class SentMessages: MessageSending {
    private(set) var sent: [(route: [UInt8], message: WireMessage)] = []

    func send(_ message: WireMessage, to route: [UInt8]) { sent.append((route, message)) }

    func assignments(to route: [UInt8]) -> [AttemptKey] {
        sent.compactMap { entry in
            guard entry.route == route, case .assign(let assignment) = entry.message else { return nil }
            return assignment.key
        }
    }

    func cancels(to route: [UInt8]) -> [AttemptKey] {
        sent.compactMap { entry in
            guard entry.route == route, case .cancel(let verdict) = entry.message else { return nil }
            return verdict.key
        }
    }
}
