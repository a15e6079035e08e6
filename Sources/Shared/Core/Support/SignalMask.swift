#if canImport(Glibc)
    import Glibc
#endif

/// Programs started by Foundation's `Process` inherit a mask that blocks most signals, so
/// SIGTERM would never reach them. The farm's programs clear it first thing.
public enum SignalMask {
    public static func unblockAll() {
        var empty = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, nil)
    }
}
