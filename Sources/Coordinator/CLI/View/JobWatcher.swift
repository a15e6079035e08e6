import ArgumentParser
import FarmCore
import FarmPostgres
import FarmStore
import Foundation

/// Follows one job until it ends. It refreshes when PostgreSQL notifies channel `farm` with
/// the job's id (every accepted chunk, progress report and state change sends one), at most
/// ten times a second, and otherwise once every few seconds in case a notice was missed; it
/// never polls in a loop.
struct JobWatcher {
    let store: FarmStore
    let job: Int64
    /// Runs between refreshes; throwing stops the watch (`farm render` checks its own farm).
    var check: () throws -> Void = {}

    /// The descriptor the view prints on, when its reader leaving should end the watch.
    var output: Int32? = nil

    /// `check`, then whether the view's output is gone (`ClosedOutput`: `farm watch 12 | head`):
    /// the watch ends, exiting 141 as for SIGPIPE, through its clean-up (a private server stops).
    private func checkAll() throws {
        try check()
        if ClosedOutput.flag.isRaised || output.map(ClosedOutput.readerGone) == true { throw ExitCode(128 + SIGPIPE) }
    }

    /// Shows every refresh on `display` and returns the finished job.
    func follow(on display: inout some JobDisplay) throws -> JobDetail {
        try store.listen(.farm)
        let clock = ContinuousClock()
        let start = clock.now
        var throughput = Throughput()
        var lastRefresh = start
        let everyChunk = display.showsEveryChunk
        var detail = try reconnecting { try store.jobDetail(job, everyChunk: everyChunk) }
        // The cache does its chunks at submission: counted at the start and again at the end,
        // from every chunk (a damaged entry is rendered again), not at every refresh.
        let reused = try reconnecting { try store.reusedChunkCount(job: job) }
        while true {
            if detail.job.isFinished {
                // The summary counts every chunk's attempts: read once, at the end.
                if !everyChunk { detail = try reconnecting { try store.jobDetail(job) } }
                display.finish(detail, reused: detail.reusedChunks)
                return detail
            }
            throughput.add(time: (clock.now - start) / .seconds(1), frames: detail.job.framesDone)
            // No ETA while paused, or while no coordinator serves (the warning says so): nothing
            // would finish the job meanwhile.
            let status = detail.job
            let finishing = status.state.isClaimable && !status.paused && status.warning == nil
            display.show(
                detail, reused: reused, fps: throughput.rate ?? status.fps,
                eta: finishing ? throughput.secondsLeft(total: status.frameCount, overall: status.fps) : nil)
            // Once every chunk is in, no burst of progress is left to gather: the next notices
            // are the job's join and its end, shown at once.
            let chunks = detail.job.chunks
            let gathers = detail.job.state != .joining && chunks.done < chunks.total
            try reconnecting { try waitForChange(since: &lastRefresh, clock: clock, gathering: gathers) }
            detail = try reconnecting { try store.jobDetail(job, everyChunk: everyChunk) }
        }
    }

    /// Runs `body`, riding out a database restart or outage: one line says the database is
    /// unreachable, the watch reconnects with backoff and carries on (Ctrl-C ends it).
    private func reconnecting<T>(_ body: () throws -> T) throws -> T {
        var backoff = Backoff()
        var told = false
        while true {
            do {
                let value = try body()
                if told { FarmExit.printError("the database is back") }
                return value
            } catch let error as PostgresError where error.isConnectionLost {
                if !told { FarmExit.printError("\(error); reconnecting") }
                told = true
                try checkAll()
                backoff.pause()
                do {
                    try store.reconnect()
                } catch let failure as PostgresError where failure.isConnectionLost {
                    continue
                }
            }
        }
    }

    /// Returns once a notice names the job (after gathering the burst it came in, when
    /// `gathering`), or after five quiet seconds.
    private func waitForChange(
        since lastRefresh: inout ContinuousClock.Instant, clock: ContinuousClock, gathering: Bool
    ) throws {
        while true {
            let payloads = try store.notifications(timeout: .seconds(1))
            try checkAll()
            let mentioned = payloads.contains(String(job))
            guard mentioned || clock.now - lastRefresh > .seconds(5) else { continue }
            if mentioned && gathering {
                // Progress reports come in bursts from every worker: gather them into one refresh.
                let pause = 0.1 - (clock.now - lastRefresh) / .seconds(1)
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                _ = try store.notifications(timeout: .zero)
            }
            lastRefresh = clock.now
            return
        }
    }
}

extension JobDetail {
    /// How many of the chunks listed the segment cache did.
    var reusedChunks: Int { chunks.filter { $0.state == .reused }.count }
}
