import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The coordinator drops what it measured early for jobs that ended with no join to take it
/// (`SoundPremeasures.forgetEnded`): the store names those among the jobs it asks about.
@Suite struct FinishedJobsTests {
    @Test func onlyJobsThatEndedAreNamedAndOnlyAmongThoseAskedAbout() throws {
        let (store, rendering, _) = try LiveNumbersTests.rendering(fps: 4)
        let cancelled = try PoolRoutingTests.submit(store, chunks: 3)
        let other = try PoolRoutingTests.submit(store, chunks: 3)
        _ = try store.cancel(job: cancelled)
        _ = try store.cancel(job: other)
        #expect(try store.finishedJobs(among: [rendering, cancelled]) == [cancelled])
        #expect(try store.finishedJobs(among: [rendering]).isEmpty)
        #expect(try store.finishedJobs(among: []).isEmpty)
    }
}
