import FarmCore
import FarmWorker

/// A clock that moves only when told: in these tests time passes while the agent waits for a
/// message that is not there (`ScriptedCoordinator`), never by the wall clock.
final class ManualClock: WorkerClock {
    private let instant = Locked(ContinuousClock().now)

    var now: ContinuousClock.Instant { instant.current }

    func advance(by duration: Duration) {
        instant.withLock { $0 = $0.advanced(by: duration) }
    }
}
