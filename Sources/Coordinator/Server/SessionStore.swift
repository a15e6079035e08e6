import FarmCore
import FarmStore
import FarmWire

/// What `WorkerSessions` needs of the farm's database: `FarmStore` on a farm, a table in
/// memory in unit tests and in the scheduler benchmark's checks.
package protocol SessionStore: AnyObject {
    /// Records that the worker was heard; returns whether it is draining.
    func workerSeen(_ info: WorkerInfo, rendering: Bool) throws -> Bool
    func workerLost(_ id: String) throws
    /// Marks lost the workers besides `heard` not recorded for `seconds`; returns them.
    func markSilentWorkersLost(after seconds: Double, besides heard: [String]) throws -> [String]
    /// Marks many workers seen and extends the leases they hold, in one statement.
    func recordHeartbeats(_ reports: [FarmStore.HeartbeatReport], leaseSeconds: Double) throws
        -> FarmStore.HeartbeatOutcome
    /// Records many progress reports in one statement.
    func recordProgress(_ records: [FarmStore.ProgressRecord]) throws
    /// Takes back an attempt the worker has not started.
    func giveBack(_ key: AttemptKey, reason: String) throws
    /// Fills the requested slots, all in one round trip.
    func claim(_ requests: [ClaimRequest], leaseSeconds: Double) throws -> [ClaimedChunk]
    /// The running attempts leased to `workers`.
    func leased(to workers: [String]) throws -> [ClaimedChunk]
}

extension FarmStore: SessionStore {}

/// Sends messages to workers by route: the coordinator's ROUTER socket (`Outbox`), or a
/// recorder in tests.
package protocol MessageSending: AnyObject {
    func send(_ message: WireMessage, to route: [UInt8])
}

extension Outbox: MessageSending {}
