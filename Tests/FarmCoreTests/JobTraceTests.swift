import FarmCore
import Testing

/// The trace's reading: phases that add up to each attempt's span, renders in slot rows, and
/// idle time counted only while the job still had queued work the worker did not hold.
@Suite struct JobTraceTests {
    static func attempt(
        _ index: Int, worker: String, sent: Double, received: Double, start: Double, end: Double, accepted: Double
    ) -> JobTrace.Attempt {
        JobTrace.Attempt(
            kind: .video, index: index, attempt: 1, worker: worker, outcome: "done", claimed: sent, sent: sent,
            received: received, renderStarted: start, rendered: end, uploaded: end + 0.01, verified: end + 0.03,
            accepted: accepted, ended: accepted)
    }

    @Test func phasesAddUpAndSlotsShowIdleTimeWhileWorkWasQueued() {
        var trace = JobTrace(
            job: 1, submitted: 99, started: 100, joinStarted: 106.1, joined: 106.2, checked: 106.3, finished: 106.4)
        trace.attempts = [
            // w1 holds its next task before each render ends.
            Self.attempt(0, worker: "w1", sent: 100, received: 100.01, start: 100.01, end: 102, accepted: 102.05),
            Self.attempt(1, worker: "w1", sent: 100, received: 100.02, start: 102, end: 104, accepted: 104.05),
            // w2 waits 0.5 s for a task sent after its render ended: idle while work was queued.
            Self.attempt(2, worker: "w2", sent: 100, received: 100.01, start: 100.01, end: 101, accepted: 101.05),
            Self.attempt(3, worker: "w2", sent: 101.5, received: 101.5, start: 101.5, end: 106, accepted: 106.05),
        ]
        let summary = trace.summary
        #expect(summary.attemptsTraced == 4)
        for attempt in trace.attempts {
            let phases = try! #require(attempt.phases)
            #expect(abs(phases.total - (attempt.accepted! - attempt.sent!)) < 1e-9)
        }
        #expect(summary.slots.map(\.worker) == ["w1", "w2"])
        let (w1, w2) = (summary.slots[0], summary.slots[1])
        #expect(w1.idleWhileQueuedGaps == 0 && w1.renders.count == 2)
        #expect(w2.idleWhileQueuedGaps == 1 && abs(w2.idleWhileQueued - 0.5) < 1e-9)
        // The last render began at 2 s: w1 rendered 1.99 s of them, w2 0.99 s and 0.5 s.
        #expect(abs(w1.busyUntilLastStart - 1.99 / 2) < 1e-9)
        #expect(abs(w2.busyUntilLastStart - 1.49 / 2) < 1e-9)
        #expect(summary.lastRenderStart == 2 && summary.startup == 1)
        #expect(abs(summary.joined! - summary.joinStarted! - 0.1) < 1e-9)
    }

    /// A slot whose last render ended while another worker was still sent tasks idled while
    /// work was queued only until the last was sent, not to the job's end.
    @Test func idleWhileQueuedEndsWithTheLastTaskSent() {
        var trace = JobTrace(
            job: 1, submitted: 0, started: 0, joinStarted: 6, joined: 6.1, checked: 6.2, finished: 6.3)
        trace.attempts = [
            Self.attempt(0, worker: "w1", sent: 0, received: 0.01, start: 0.01, end: 2, accepted: 2.05),
            Self.attempt(1, worker: "w2", sent: 0, received: 0.01, start: 0.01, end: 3, accepted: 3.05),
            Self.attempt(2, worker: "w2", sent: 3, received: 3, start: 3, end: 6, accepted: 6),
        ]
        let w1 = trace.summary.slots[0]
        #expect(w1.worker == "w1" && w1.idleWhileQueuedGaps == 1)
        #expect(abs(w1.idleWhileQueued - 1) < 1e-9, "from 2 s to the last task sent at 3 s: \(w1.idleWhileQueued)")
    }

    @Test func rendersThatOverlapOnOneWorkerTakeTwoSlotRows() {
        var trace = JobTrace(
            job: 1, submitted: 0, started: 0, joinStarted: nil, joined: nil, checked: nil, finished: nil)
        trace.attempts = [
            Self.attempt(0, worker: "w1", sent: 0, received: 0, start: 0, end: 2, accepted: 2.1),
            Self.attempt(1, worker: "w1", sent: 0, received: 0, start: 0.5, end: 2.5, accepted: 2.6),
            // Seeming to start 20 ms before the first ended: each is placed from its own upload.
            Self.attempt(2, worker: "w1", sent: 0, received: 0, start: 1.98, end: 3, accepted: 3.1),
        ]
        let slots = trace.summary.slots
        #expect(slots.map(\.lane) == [0, 1])
        #expect(slots[0].renders.map(\.name) == ["chunk 0", "chunk 2"])
    }

    @Test func frameRunsRoundTripFlags() {
        let flags = [true, true, false, true, false, false, true]
        let runs = FrameRun.runs(of: flags, from: 10)
        #expect(runs == [FrameRun(start: 10, end: 12), FrameRun(start: 13, end: 14), FrameRun(start: 16, end: 17)])
        #expect(FrameRun.flags(runs, over: 10..<17) == flags)
        #expect(FrameRun.flags(runs, over: 11..<14) == [true, false, true])
    }
}
