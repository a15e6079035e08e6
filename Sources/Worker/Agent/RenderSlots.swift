import FarmCore
import FarmMedia
import FarmRender
import Foundation

/// Runs renders on threads of their own, at most `slots` at a time, queued tasks in chunk
/// order. A render thread touches only its task's locked fields; the loop reads them.
final class RenderSlots {
    private let slots: Int
    private let renderer: ChunkRendering
    private let clock: WorkerClock
    private let threads: RenderThreads

    init(slots: Int, renderer: ChunkRendering, clock: WorkerClock, threads: RenderThreads) {
        self.slots = slots
        self.renderer = renderer
        self.clock = clock
        self.threads = threads
    }

    /// Starts as many queued tasks as there are free slots.
    func start(from tasks: [WorkerTask]) {
        let busy = tasks.filter(\.isRendering).count
        let waiting = tasks.filter(\.isQueued).sorted { $0.key.chunk < $1.key.chunk }
        for task in waiting.prefix(max(0, slots - busy)) {
            task.phase = .rendering
            task.renderStarted = clock.now
            let (renderer, clock) = (self.renderer, self.clock)
            threads.start {
                task.log.append("rendering")
                do {
                    let output = try FFmpegLog.capturing(into: task.log) {
                        try renderer.render(task.assignment, cancellation: task.cancellation) { progress in
                            task.framesDone.withLock { $0 = progress.framesDone }
                        }
                    }
                    task.outcome.withLock { $0 = .success(output) }
                } catch {
                    let failure = RenderFailure(
                        text: "\(error)", fatal: error is MediaChangedError,
                        copies: (error as? FailedOnCopies)?.assets ?? [])
                    task.outcome.withLock { $0 = .failure(failure) }
                }
            }
        }
    }
}
