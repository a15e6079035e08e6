import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The dashboard's plot of a job's frames per second: each accepted video chunk's frames fall
/// in the span of time it was accepted in, and the spans together hold every frame.
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
        #expect(points.map { $0.fps * width }.reduce(0, +) == 30, "\(points)")
        #expect(try store.renderRate(job: SchedulingTests.submit(store, chunks: 1)).isEmpty)
    }
}
