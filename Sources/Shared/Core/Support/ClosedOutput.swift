import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output or error gone while a command runs: a pipe whose reader left
/// (`farm render … | head`) or a terminal hung up. By default the first write kills the
/// command (SIGPIPE) and `FileHandle.write` traps on the error (EPIPE, EIO), either way
/// before its clean-up, leaving its private PostgreSQL running. `farm` ignores SIGPIPE and
/// writes through `writeUnlessClosed`, which drops what cannot be written and raises `flag`;
/// a render then stops as if interrupted (`Interruption`).
public enum ClosedOutput {
    public static let flag = StopFlag()
    private static let alsoRaised = Locked<[StopFlag]>([])

    /// Raises `other` too when the output closes (a render's cancellation), at once if it has.
    public static func alsoRaise(_ other: StopFlag) {
        alsoRaised.withLock { $0.append(other) }
        if flag.isRaised { other.raise() }
    }

    static func close() {
        flag.raise()
        for other in alsoRaised.current { other.raise() }
    }

    /// Takes a closed pipe as a failed write rather than a signal (`farm` calls it first).
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Whether `descriptor`'s reader is gone, found without writing: a pipe whose reader closed
    /// polls as an error, a hung-up terminal as a hang-up (coreutils' `tail -f` asks the same).
    /// A view that prints only on a change would otherwise learn it at its next change.
    public static func readerGone(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: 0, revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & Int16(POLLERR | POLLHUP) != 0
    }
}

extension FileHandle {
    /// Writes `data`, or drops it and raises `ClosedOutput.flag` when the stream is gone.
    public func writeUnlessClosed(_ data: Data) {
        do { try write(contentsOf: data) } catch { ClosedOutput.close() }
    }
}
