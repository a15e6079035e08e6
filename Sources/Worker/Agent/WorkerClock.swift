/// The time the agent keeps its heartbeats, progress reports, upload patience and pacing by:
/// `ContinuousClock` on a farm, a clock a unit test moves by hand. Read on render threads too.
package protocol WorkerClock: Sendable {
    var now: ContinuousClock.Instant { get }
}

extension ContinuousClock: WorkerClock {}
