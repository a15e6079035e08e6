import FarmCore

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C, SIGTERM or a closed terminal (SIGHUP) during a render, or its output gone
/// (`ClosedOutput`: a pipe's reader left). The first signal raises `flag`, which the render checks
/// between frames or refreshes, so the command unwinds through its clean-up (workers, coordinator,
/// private PostgreSQL, temporary file) and exits 128 + N (141, as for SIGPIPE, when the output is
/// gone). A second signal exits at once.
final class Interruption {
    let flag = StopFlag()
    private let received = Locked<Int32?>(nil)
    private var signals: StopSignals?

    init() {
        signals = StopSignals([SIGINT, SIGTERM, SIGHUP]) { [flag, received] number in
            let again = received.withLock { first -> Bool in
                defer { first = first ?? number }
                return first != nil
            }
            if again { exit(128 + number) }
            flag.raise()
        }
        ClosedOutput.alsoRaise(flag)
    }

    /// The signal that interrupted the command, if one did; SIGPIPE for output gone.
    var signal: Int32? { received.current ?? (ClosedOutput.flag.isRaised ? SIGPIPE : nil) }

    /// Throws `Interrupted` once a signal has come.
    func check() throws {
        if let signal { throw Interrupted(signal: signal) }
    }
}

/// A render stopped by Ctrl-C or SIGTERM.
struct Interrupted: Error, CustomStringConvertible {
    let signal: Int32
    var description: String {
        switch signal {
        case SIGINT: "interrupted (Ctrl-C)"
        case SIGHUP: "interrupted (the terminal closed)"
        case SIGPIPE: "interrupted (its output closed)"
        default: "interrupted (signal \(signal))"
        }
    }
}
