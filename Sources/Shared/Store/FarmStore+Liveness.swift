import FarmCore
import Foundation

/// Whether a coordinator is serving this farm: the leading one records itself every few
/// seconds, and says so when it stops.
extension FarmStore {
    /// Seconds without a record after which a running coordinator counts as gone (it records
    /// every 5 s; a database outage it waits out is shorter than a lease).
    public static let coordinatorSilence = 15.0

    /// Records that the leading coordinator is serving.
    public func recordCoordinatorServing() throws {
        try connection.query("UPDATE farm_identity SET coordinator_seen_at = now(), coordinator_running = true")
    }

    /// Records that the leading coordinator stopped.
    public func recordCoordinatorStopped() throws {
        try connection.query("UPDATE farm_identity SET coordinator_seen_at = now(), coordinator_running = false")
    }

    /// The coordinator's state as operators should read it.
    public func coordinatorLiveness() throws -> CoordinatorLiveness {
        let row = try connection.query(
            """
            SELECT extract(epoch FROM coordinator_seen_at) AS seen, coordinator_running,
                   extract(epoch FROM now()) AS now
            FROM farm_identity
            """)[0]
        return CoordinatorLiveness(
            lastSeen: try row.decode("seen"), running: try row.decode("coordinator_running"), now: try row.decode("now")
        )
    }
}

/// When a coordinator last served the farm, and what that means for queued work.
public struct CoordinatorLiveness: Sendable, Equatable {
    /// Seconds since 1970 of its last record; nil when none ever ran on this database.
    public var lastSeen: Double?
    public var running: Bool
    /// The database's clock when read.
    public var now: Double

    public init(lastSeen: Double?, running: Bool, now: Double) {
        self.lastSeen = lastSeen
        self.running = running
        self.now = now
    }

    public var isServing: Bool {
        guard let lastSeen, running else { return false }
        return now - lastSeen <= FarmStore.coordinatorSilence
    }

    /// "no coordinator since …" when none serves; nil when one does.
    public var warning: String? {
        guard !isServing else { return nil }
        guard let lastSeen else {
            return "no coordinator has run on this farm yet: nothing renders until `farm serve` starts"
        }
        let when = FarmStore.timestamp(lastSeen) ?? ""
        let how = running ? "it stopped answering" : "it stopped"
        return "no coordinator since \(when) (\(how) \(Self.age(now - lastSeen)) ago): nothing renders until "
            + "`farm serve` runs again"
    }

    private static func age(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds))
        if whole < 120 { return "\(whole) s" }
        if whole < 7200 { return "\(whole / 60) min" }
        return "\(whole / 3600) h"
    }
}
