import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes a thread that waits in `poll` on `descriptor` (a pipe's reading end): another
/// thread's work has finished, so the loop acts on it now instead of at its next timeout.
public final class LoopWakeup: @unchecked Sendable {
    /// The descriptor to poll for reading; readable once `wake()` has been called.
    public let descriptor: Int32
    private let writer: Int32

    public init() throws(SystemCallError) {
        var ends: [Int32] = [0, 0]
        try SystemCall.retrying("pipe") { pipe(&ends) }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    deinit {
        close(descriptor)
        close(writer)
    }

    /// Makes the descriptor readable; any thread, any number of times before the next `clear`.
    public func wake() {
        var byte: UInt8 = 1
        // Refused only when the pipe is full, and then it is readable already.
        _ = try? SystemCall.retrying("write", path: "wakeup pipe") { write(writer, &byte, 1) }
    }

    /// Makes it unreadable again until the next `wake()`.
    public func clear() {
        var bytes = [UInt8](repeating: 0, count: 64)
        // Until EAGAIN: the pipe is empty.
        while true {
            let got = try? SystemCall.retrying("read", path: "wakeup pipe") { read(descriptor, &bytes, bytes.count) }
            guard let got, got > 0 else { return }
        }
    }
}
