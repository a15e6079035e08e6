import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child started by `Subprocess`, reaped once: after it has been waited for, its pid (which
/// the system may give to another process) is never signalled again.
public final class ChildProcess {
    public let pid: pid_t
    /// Its exit status (128 + N for signal N) once it has ended and been reaped.
    public private(set) var status: Int32?

    public init(pid: pid_t) { self.pid = pid }

    public var isRunning: Bool { wait(timeout: 0) == nil }

    /// Sends `signal` unless it has already been reaped.
    public func send(_ signal: Int32) {
        if status == nil { kill(pid, signal) }
    }

    /// Its exit status, or nil if it still runs after `timeout` seconds (nil: wait for ever).
    @discardableResult
    public func wait(timeout: Double?) -> Int32? {
        if status == nil { status = Subprocess.wait(pid, timeout: timeout) }
        return status
    }

    /// SIGTERM to each, then SIGKILL to any still running `grace` seconds later; reaps them all.
    public static func stop(_ children: [ChildProcess], grace: Double) {
        for child in children { child.send(SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        for child in children where child.wait(timeout: max(0, deadline.timeIntervalSinceNow)) == nil {
            child.send(SIGKILL)
            child.wait(timeout: nil)
        }
    }
}
