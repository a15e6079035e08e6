import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Calls `stop` with the signal's number on SIGINT or SIGTERM, instead of dying mid-write.
/// Lasts as long as the value is kept.
public final class StopSignals {
    private let sources: [DispatchSourceSignal]

    public init(_ stop: @escaping (Int32) -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
