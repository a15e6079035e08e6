import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// `farm status` reads per-job counts kept by a trigger (migration 9) instead of counting
/// every chunk: after every kind of change they equal a count made the slow way.
@Suite struct ChunkTallyTests {
    /// [queued, running, done, failed, total] and frames done, counted over every chunk and
    /// its current attempt, as `farm status` did before the counts were kept.
    static func recount(_ store: FarmStore, _ job: Int64) throws -> (counts: [Int64], frames: Int64) {
        let row = try store.connection.query(
            """
            SELECT count(*) FILTER (WHERE c.state = 'queued' AND a.outcome IS DISTINCT FROM 'failed') AS queued,
                   count(*) FILTER (WHERE c.state = 'running') AS running,
                   count(*) FILTER (WHERE c.state = 'done') AS done,
                   count(*) FILTER (WHERE c.state = 'queued' AND a.outcome = 'failed') AS failed, count(*) AS total,
                   coalesce(sum(CASE WHEN c.kind <> 'video' THEN 0
                                     WHEN c.state = 'done' THEN c.end_frame - c.start_frame
                                     WHEN c.state = 'running' AND a.outcome = 'running' THEN a.frames_done
                                     ELSE 0 END), 0) AS frames
            FROM chunks c LEFT JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
            WHERE c.job_id = $1
            """, [String(job)])[0]
        let counts = try ["queued", "running", "done", "failed", "total"].map { try row.decode($0, as: Int64.self) }
        return (counts, try row.decode("frames"))
    }

    static func expectKeptCountsMatch(_ store: FarmStore, _ jobs: [Int64], _ step: String) throws {
        for job in jobs {
            let status = try #require(try store.jobStatuses(id: job).first)
            var (counts, frames) = try recount(store, job)
            if status.state == .failed || status.state == .cancelled {
                // An ended job's chunks not done are unfinished: nothing will render them.
                #expect(Int64(status.chunks.unfinished) == counts[4] - counts[2], "job \(job) after \(step)")
                counts = [0, 0, counts[2], 0, counts[4]]
            }
            let kept =
                [status.chunks.queued, status.chunks.running, status.chunks.done, status.chunks.failed]
                .map(Int64.init) + [Int64(status.chunks.total)]
            #expect(kept == counts, "job \(job) after \(step)")
            // A finished job shows all its frames whatever its chunks hold; compare live ones.
            if !status.state.isFinished { #expect(status.framesDone == frames, "job \(job) after \(step)") }
        }
    }

    @Test func keptCountsEqualARecountAfterEveryKindOfChange() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1", "w2")
        let first = try SchedulingTests.submit(store, chunks: 5)
        let second = try SchedulingTests.submit(store, chunks: 4)
        let jobs = [first, second]
        try Self.expectKeptCountsMatch(store, jobs, "submit")

        let claimed = try store.claim(
            [ClaimRequest(worker: "w1", count: 3), ClaimRequest(worker: "w2", count: 2)], leaseSeconds: 30)
        try Self.expectKeptCountsMatch(store, jobs, "a claim")
        let video = claimed.filter { $0.kind == .video }
        try store.recordProgress(
            video.map { FarmStore.ProgressRecord(key: $0.key, worker: $0.worker, frames: 4, fps: 20) })
        try Self.expectKeptCountsMatch(store, jobs, "progress")

        #expect(try store.accept(video[0].key, made: .frames(10, fps: 20)))
        try Self.expectKeptCountsMatch(store, jobs, "an acceptance")
        _ = try store.fail(video[1].key, error: "broken")
        try Self.expectKeptCountsMatch(store, jobs, "a failure")

        // Leases of no time expire at once: the chunks go back to the queue.
        _ = try store.claim([ClaimRequest(worker: "w2", count: 2)], leaseSeconds: 0)
        #expect(!(try store.expireLeases()).isEmpty)
        try Self.expectKeptCountsMatch(store, jobs, "lease expiry")

        #expect(try store.compactTallies() > 0)
        let rows = try store.connection.query("SELECT count(*) AS rows FROM chunk_tallies")[0].decode(
            "rows", as: Int64.self)
        #expect(rows == 2, "one row per job once folded")
        try Self.expectKeptCountsMatch(store, jobs, "folding")

        _ = try store.cancel(job: second)
        try Self.expectKeptCountsMatch(store, jobs, "a cancel")
        _ = try store.retry(job: second)
        try Self.expectKeptCountsMatch(store, jobs, "a retry")
        _ = try store.retry(job: first, chunk: 0)
        try Self.expectKeptCountsMatch(store, jobs, "a retry of one chunk")

        try store.connection.query("DELETE FROM jobs WHERE id = $1", [String(second)])
        try store.compactTallies()
        let left = try store.connection.query("SELECT DISTINCT job_id FROM chunk_tallies").map {
            try $0.decode("job_id", as: Int64.self)
        }
        #expect(left == [first], "a deleted job's counts fold to nothing")
        try Self.expectKeptCountsMatch(store, [first], "a deletion")
    }

    /// A retried job's fps measures the run that starts: chunks kept from before took no time.
    @Test func framesDoneBeforeARetryAreKeptOutOfTheNewRun() throws {
        let store = try FarmStore(url: TestDatabase.create())
        try SchedulingTests.seen(store, "w1")
        let job = try SchedulingTests.submit(store, chunks: 3)
        let claimed = try store.claim([ClaimRequest(worker: "w1", count: 3)], leaseSeconds: 30)
        for chunk in claimed where chunk.kind == .video && chunk.work.index < 2 {
            #expect(try store.accept(chunk.key, made: .frames(10, fps: 20)))
        }
        _ = try store.cancel(job: job)
        _ = try store.retry(job: job)
        let kept = try store.connection.query("SELECT frames_kept FROM jobs WHERE id = $1", [String(job)])[0].decode(
            "frames_kept", as: Int64.self)
        #expect(kept == 20)
        let status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.framesDone == 20)
        #expect(status.fps == nil, "nothing rendered in this run yet")
    }
}
