import FarmCore
import FarmRender
import Foundation

/// Runs renders on threads of their own, at most `slots` at a time, queued tasks in chunk
/// order. A render thread touches only its task's locked fields; the loop reads them.
final class RenderSlots {
    private let slots: Int
    private let renderer: AssignmentRenderer

    init(slots: Int, renderer: AssignmentRenderer) {
        self.slots = slots
        self.renderer = renderer
    }

    /// Starts as many queued tasks as there are free slots.
    func start(from tasks: [WorkerTask]) {
        let busy = tasks.filter(\.isRendering).count
        let waiting = tasks.filter(\.isQueued).sorted { $0.key.chunk < $1.key.chunk }
        for task in waiting.prefix(max(0, slots - busy)) {
            task.phase = .rendering
            let renderer = self.renderer
            let thread = Thread {
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    let output = try renderer.render(task.assignment, cancellation: task.cancellation) { progress in
                        let seconds = (clock.now - started) / .seconds(1)
                        let fps = Double(progress.framesDone) / max(seconds, 0.001)
                        task.progress.withLock { $0 = (progress.framesDone, fps) }
                    }
                    task.outcome.withLock { $0 = .success(output) }
                } catch {
                    let failure = RenderFailure(text: "\(error)", fatal: error is MediaChangedError)
                    task.outcome.withLock { $0 = .failure(failure) }
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
