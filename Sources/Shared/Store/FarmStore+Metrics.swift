import FarmCore
import Foundation

/// The farm's state as Prometheus reads it (`GET /metrics`), from the database at scrape time:
/// what every coordinator of the farm did, not what one process counted since it started. A
/// scrape reads the jobs table, the per-job tallies (migration 9) and the workers, never every
/// chunk.
public struct FarmMetrics: Sendable {
    public var coordinatorUp: Bool
    public var jobs: [JobState: Int]
    public var chunks: (queued: Int64, running: Int64, done: Int64)
    /// Video frames of every accepted chunk, of every job (a retried chunk counts again).
    public var framesRendered: Int64
    public var workers: [String: Int]
    public var workerFps: [(worker: String, fps: Double)]
    public var segmentBytes: Int64
    public var databaseSeconds: Double
}

extension FarmStore {
    public func metrics() throws -> FarmMetrics {
        let clock = ContinuousClock()
        let start = clock.now
        _ = try connection.query("SELECT 1")
        let roundTrip = (clock.now - start) / .seconds(1)
        var jobs: [JobState: Int] = [:]
        for row in try connection.query("SELECT state, count(*) FROM jobs GROUP BY state") {
            jobs[try JobState(stored: row.string(0))] = Int(row.int(1))
        }
        let tallies = try connection.query(
            """
            SELECT coalesce(sum(queued), 0), coalesce(sum(running), 0), coalesce(sum(done), 0),
                   coalesce(sum(done_frames), 0)
            FROM chunk_tallies
            """)[0]
        let workers = try workerStatuses()
        return FarmMetrics(
            coordinatorUp: try coordinatorLiveness().isServing, jobs: jobs,
            chunks: (tallies.int(0), tallies.int(1), tallies.int(2)), framesRendered: tallies.int(3),
            workers: Dictionary(grouping: workers, by: { $0.state.rawValue }).mapValues(\.count),
            workerFps: workers.compactMap { worker in worker.averageFps.map { (worker.id, $0) } },
            segmentBytes: try segmentUsage().bytes, databaseSeconds: roundTrip)
    }
}
