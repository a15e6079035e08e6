import FarmCore
import Foundation

/// Where a render runs: on a farm a thread of its own; in unit tests the render waits until the
/// test runs it, so whether a message comes before or after a render ends is the test's choice.
package protocol RenderThreads {
    func start(_ render: @escaping @Sendable () -> Void)
}

/// Each render on a new thread, with stack enough for the compositor and FFmpeg.
package struct OwnThreads: RenderThreads {
    /// Woken as each render returns: the agent's loop uploads it at once.
    package var wakeup: LoopWakeup?

    package init(wakeup: LoopWakeup? = nil) { self.wakeup = wakeup }

    package func start(_ render: @escaping @Sendable () -> Void) {
        let wakeup = wakeup
        let thread = Thread {
            render()
            wakeup?.wake()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
