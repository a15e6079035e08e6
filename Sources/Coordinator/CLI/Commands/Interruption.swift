import FarmCore

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C or SIGTERM during a render. The first signal raises `flag`, which the render checks
/// between frames or refreshes, so the command unwinds through its clean-up (workers, coordinator,
/// private PostgreSQL, temporary file) and exits 128 + N. A second signal exits at once.
final class Interruption {
    let flag = StopFlag()
    private let received = Locked<Int32?>(nil)
    private var signals: StopSignals?

    init() {
        signals = StopSignals { [flag, received] number in
            let again = received.withLock { first -> Bool in
                defer { first = first ?? number }
                return first != nil
            }
            if again { exit(128 + number) }
            flag.raise()
        }
    }

    /// The signal that interrupted the command, if one did.
    var signal: Int32? { received.current }

    /// Throws `Interrupted` once a signal has come.
    func check() throws {
        if let signal { throw Interrupted(signal: signal) }
    }
}

/// A render stopped by Ctrl-C or SIGTERM.
struct Interrupted: Error, CustomStringConvertible {
    let signal: Int32
    var description: String { signal == SIGINT ? "interrupted (Ctrl-C)" : "interrupted (signal \(signal))" }
}
