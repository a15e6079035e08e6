import FarmCore
import FarmWire
import Foundation

/// One assignment on a worker, from queued through rendering and upload to the verdict.
final class WorkerTask {
    enum Phase {
        case queued
        case rendering
        /// Sending pieces; `acked` is how much the coordinator holds.
        case uploading(acked: Int64, sentAt: ContinuousClock.Instant)
        /// Acknowledged up to `acked`; the next piece waits for the upload limit.
        case paced(acked: Int64)
        /// Every piece acknowledged, `done` sent; waiting for accepted or rejected.
        case awaitingVerdict(sentAt: ContinuousClock.Instant)
    }

    /// A rendered result as uploaded: measured and hashed once.
    struct Upload {
        var output: AssignmentRenderer.Output
        var bytes: Int64
        var sha256: String
    }

    let assignment: Assignment
    /// When the assignment came.
    let received: ContinuousClock.Instant
    var phase: Phase = .queued
    let cancellation = StopFlag()
    /// Frames encoded so far: written by the render thread, read by the loop.
    let framesDone = Locked<Int64>(0)
    /// When its render started, and its speed over the last few seconds, sampled by the loop
    /// at each progress report (so a stalled render shows its stall).
    var renderStarted: ContinuousClock.Instant?
    /// When the loop saw its render end.
    var renderEnded: ContinuousClock.Instant?
    var speed = RateWindow()
    let outcome = Locked<Result<AssignmentRenderer.Output, RenderFailure>?>(nil)
    var upload: Upload?
    /// Its phases as the first `done` said them; a `done` sent again says the same.
    var reportedPhases: WorkerPhases?
    /// What the worker and FFmpeg logged for this attempt, sent with its result or failure.
    let log = AttemptLog()

    init(_ assignment: Assignment, received: ContinuousClock.Instant) {
        self.assignment = assignment
        self.received = received
    }

    var key: AttemptKey { assignment.key }

    /// "job 3 chunk 22 attempt 1": the attempt as the coordinator, the CLI and the dashboard name it.
    var label: String { assignment.work.label(job: assignment.job, attempt: assignment.key.attempt) }

    var isRendering: Bool {
        if case .rendering = phase { return true }
        return false
    }

    /// Rendered; its result is uploading or waiting for the verdict.
    var isUploading: Bool {
        switch phase {
        case .uploading, .paced, .awaitingVerdict: return true
        case .queued, .rendering: return false
        }
    }

    /// Its phases so far, as `done` reports them.
    func phases(now: ContinuousClock.Instant) -> WorkerPhases {
        let seconds = { (span: Duration) in max(0, span / .seconds(1)) }
        let started = renderStarted ?? received
        let ended = renderEnded ?? now
        return WorkerPhases(
            queued: seconds(started - received), rendering: seconds(ended - started), uploading: seconds(now - ended))
    }

    var isQueued: Bool {
        if case .queued = phase { return true }
        return false
    }
}

/// Why a render failed, as text for the coordinator's attempts table.
struct RenderFailure: Error {
    var text: String
    /// Rendering again cannot help: the job fails at once.
    var fatal = false
    /// The pinned assets the render found as copies (`FailedOnCopies`).
    var copies: [String] = []
}
