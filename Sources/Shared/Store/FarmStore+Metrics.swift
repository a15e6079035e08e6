import FarmCore
import Foundation

/// The farm's state as Prometheus reads it (`GET /metrics`), from the database at scrape time:
/// what every coordinator of the farm did, not what one process counted since it started. A
/// scrape reads the jobs table, the per-job tallies (migration 9) and the workers, never every
/// chunk.
public struct FarmMetrics: Sendable {
    public var coordinatorUp: Bool
    public var jobs: [JobState: Int]
    /// Failed: waiting for another try after a failed attempt (not counted in queued);
    /// unfinished: of failed or cancelled jobs, never to be rendered (not counted in queued).
    public var chunks: (queued: Int64, running: Int64, done: Int64, failed: Int64, unfinished: Int64)
    public var workers: [String: Int]
    public var workerFps: [(worker: String, fps: Double)]
    public var segmentBytes: Int64
    public var databaseSeconds: Double
    public var counters: [FarmCounter: Double]
    public var histograms: [FarmHistogram: HistogramValues]

    package init(
        coordinatorUp: Bool, jobs: [JobState: Int],
        chunks: (queued: Int64, running: Int64, done: Int64, failed: Int64, unfinished: Int64), workers: [String: Int],
        workerFps: [(worker: String, fps: Double)], segmentBytes: Int64, databaseSeconds: Double,
        counters: [FarmCounter: Double], histograms: [FarmHistogram: HistogramValues]
    ) {
        self.coordinatorUp = coordinatorUp
        self.jobs = jobs
        self.chunks = chunks
        self.workers = workers
        self.workerFps = workerFps
        self.segmentBytes = segmentBytes
        self.databaseSeconds = databaseSeconds
        self.counters = counters
        self.histograms = histograms
    }
}

extension FarmStore {
    public func metrics() throws -> FarmMetrics {
        let clock = ContinuousClock()
        let start = clock.now
        _ = try connection.query("SELECT 1")
        let roundTrip = (clock.now - start) / .seconds(1)
        var jobs: [JobState: Int] = [:]
        for row in try connection.query("SELECT state, count(*) AS jobs FROM jobs GROUP BY state") {
            jobs[try row.decode("state", as: JobState.self)] = try row.decode("jobs")
        }
        let tallies = try connection.query(
            """
            SELECT coalesce(sum(t.queued) FILTER (WHERE j.state NOT IN ('failed', 'cancelled')), 0) AS queued,
                   coalesce(sum(t.running), 0) AS running, coalesce(sum(t.done), 0) AS done,
                   coalesce(sum(t.queued) FILTER (WHERE j.state IN ('failed', 'cancelled')), 0) AS unfinished
            FROM chunk_tallies t JOIN jobs j ON j.id = t.job_id
            """)[0]
        // Through the index of tried chunks: as many rows as chunks running or failed now.
        let failed = try connection.query(
            """
            SELECT count(*) AS failed FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
            JOIN jobs j ON j.id = c.job_id
            WHERE c.state <> 'done' AND c.attempt > 0 AND c.state = 'queued' AND a.outcome = 'failed'
              AND j.state NOT IN ('failed', 'cancelled')
            """)[0].decode("failed", as: Int64.self)
        let workers = try workerStatuses()
        let (counters, histograms) = try self.counters()
        return FarmMetrics(
            coordinatorUp: try coordinatorLiveness().isServing, jobs: jobs,
            chunks: (
                try tallies.decode("queued", as: Int64.self) - failed, try tallies.decode("running"),
                try tallies.decode("done"), failed, try tallies.decode("unfinished")
            ),
            workers: Dictionary(grouping: workers, by: { $0.state.rawValue }).mapValues(\.count),
            workerFps: workers.filter { $0.state != .lost }.map { ($0.id, $0.currentFps ?? 0) },
            segmentBytes: try segmentUsage().bytes, databaseSeconds: roundTrip, counters: counters,
            histograms: histograms)
    }
}
