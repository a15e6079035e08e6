import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The dashboard's plot of a job's frames per second: each attempt's frames are spread over the
/// time it rendered them, and the spans together hold every frame.
@Suite struct RenderRateTests {
    @Test func theSpansHoldEveryAcceptedFrame() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try SchedulingTests.submit(store, chunks: 3)
        try SchedulingTests.seen(store, "w1")
        while let claimed = try store.claim(worker: "w1", leaseSeconds: 30) {
            let frames = claimed.work.end - claimed.work.start
            #expect(try store.accept(claimed.key, made: .frames(frames, fps: 25)))
        }
        let points = try store.renderRate(job: job)
        let width = try #require(points.first?.seconds, "a span once chunks are accepted")
        #expect(width >= 1)
        #expect(abs(points.map { $0.fps * width }.reduce(0, +) - 30) < 1e-6, "\(points)")
        #expect(try store.renderRate(job: SchedulingTests.submit(store, chunks: 1)).isEmpty)
    }

    /// Four chunks of 10 frames rendered one after another, 10 s each: a steady 1 frame a second,
    /// which the plot used to show as four spikes of 10 where the chunks were accepted.
    @Test func aSteadyRenderPlotsAsASteadyLine() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try PoolRoutingTests.submit(store, chunks: 4)
        try PoolRoutingTests.seen(store, "w1", slots: 1)
        var index = 0
        while let claimed = try store.claim(worker: "w1", leaseSeconds: 30) {
            #expect(try store.accept(claimed.key, made: .frames(10, fps: 1)))
            try store.connection.query(
                """
                UPDATE attempts SET started_at = timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => $3),
                                    finished_at = timestamptz '2026-01-01 00:00:10+00' + make_interval(secs => $3)
                WHERE chunk_id = $1 AND attempt = $2
                """, [String(claimed.key.chunk), String(claimed.key.attempt), String(index * 10)])
            index += 1
        }
        // The run began with its first claim, moved back with its attempts.
        try store.connection.query(
            "UPDATE jobs SET started_at = timestamptz '2026-01-01 00:00:00+00' WHERE id = $1", [String(job)])
        let points = try store.renderRate(job: job)
        #expect(points.count == 40)
        #expect(points.first?.seconds == 1)
        #expect(points.allSatisfy { abs($0.fps - 1) < 1e-6 }, "\(points.map(\.fps))")
    }
}
