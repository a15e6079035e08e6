import FarmCore
import FarmMedia
import Foundation

/// Composites a range of frames on a thread of its own, a few frames ahead of the caller, who
/// encodes them: one chunk's decoding and compositing then run beside its encoder, on a second
/// core when one is free (the last chunks of a render, a worker with more cores than slots).
///
/// The pictures are those `Compositor.render(frame:)` returns, in frame order, so the output is
/// the same as compositing and encoding one frame after the other.
package final class CompositedFrames: @unchecked Sendable {
    private let condition = NSCondition()
    /// Composited pictures not yet taken, oldest first.
    private var ready: [Picture] = []
    /// Pictures the caller has given back, to composite into again.
    private var spare: [Picture]
    private var failure: Error?
    private var producing = true
    private var stopped = false
    private let exited = DispatchSemaphore(value: 0)

    /// Starts compositing `frames` with `compositor`, which nothing else may use until `stop()`.
    package init(compositor: Compositor, frames: Range<Int64>, cancellation: StopFlag?, depth: Int = 3) {
        spare = (0..<depth).map { _ in
            Picture(width: compositor.width, height: compositor.height, depth: compositor.depth)
        }
        let thread = Thread { [self] in
            produce(compositor: compositor, frames: frames, cancellation: cancellation)
            exited.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The next frame's picture, nil after the last; rethrows what compositing threw. Give the
    /// picture back with `recycle` once encoded.
    package func next() throws -> Picture? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && producing { condition.wait() }
        if !ready.isEmpty { return ready.removeFirst() }
        if let failure { throw failure }
        return nil
    }

    package func recycle(_ picture: Picture) {
        condition.withLock {
            spare.append(picture)
            condition.broadcast()
        }
    }

    /// Ends the compositing thread (at once, if frames are left) and waits for it: afterwards
    /// the compositor is the caller's again. Call exactly once.
    package func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
        exited.wait()
    }

    private func produce(compositor: Compositor, frames: Range<Int64>, cancellation: StopFlag?) {
        do {
            for n in frames {
                guard let target = takeSpare() else { break }
                if cancellation?.isRaised == true { throw RenderCancelled() }
                try compositor.render(frame: n).copy(to: target)
                condition.withLock {
                    ready.append(target)
                    condition.broadcast()
                }
            }
        } catch {
            condition.withLock { failure = error }
        }
        condition.withLock {
            producing = false
            condition.broadcast()
        }
    }

    /// A picture to composite into, or nil once the caller has stopped.
    private func takeSpare() -> Picture? {
        condition.lock()
        defer { condition.unlock() }
        while spare.isEmpty && !stopped { condition.wait() }
        return stopped ? nil : spare.removeLast()
    }
}
