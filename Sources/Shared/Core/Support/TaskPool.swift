import Foundation

/// Runs numbered tasks on a few threads of their own, each thread taking the next task as it
/// finishes one, so threads end together however the tasks' lengths differ.
public enum TaskPool {
    /// Runs `body(0)` … `body(count - 1)` on up to `threads` threads and returns when all have
    /// ended. The first error raises `stop`, which keeps further tasks from starting (a task may
    /// watch it to end early), and is rethrown. `whileWaiting` runs on the calling thread about
    /// ten times a second meanwhile: progress, or raising `stop` from outside.
    public static func run(
        _ count: Int, threads: Int, stop: StopFlag = StopFlag(), whileWaiting: () -> Void = {},
        _ body: @escaping (Int) throws -> Void
    ) throws {
        let next = Locked(0)
        let failure = Locked<Error?>(nil)
        let finished = DispatchGroup()
        for _ in 0..<max(1, min(threads, count)) {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                while !stop.isRaised {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < count else { return }
                    do {
                        try body(index)
                    } catch {
                        failure.withLock { $0 = $0 ?? error }
                        stop.raise()
                    }
                }
            }
            // Renders decode, composite and encode on these threads: give them a worker's stack.
            thread.stackSize = 8 << 20
            thread.start()
        }
        while finished.wait(timeout: .now() + .milliseconds(100)) == .timedOut { whileWaiting() }
        if let error = failure.current { throw error }
    }
}
