import FarmWorker

/// Render threads that wait for the test: a chunk renders for as long as the test likes, and its
/// render ends (on the test's thread) exactly where the test runs it.
final class HeldRenders: RenderThreads {
    private var held: [@Sendable () -> Void] = []

    var count: Int { held.count }

    func start(_ render: @escaping @Sendable () -> Void) {
        held.append(render)
    }

    /// Runs every render started so far, to its end.
    func runAll() {
        let renders = held
        held = []
        for render in renders { render() }
    }

    /// Starts every render so far on a thread of its own, as a farm would.
    func runAllOnThreads() {
        let renders = held
        held = []
        for render in renders { OwnThreads().start(render) }
    }
}
