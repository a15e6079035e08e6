import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Calls `stop` with the signal's number on SIGINT or SIGTERM, instead of dying mid-write.
/// Lasts as long as the value is kept.
public final class StopSignals {
    private let sources: [DispatchSourceSignal]

    private let numbers: [Int32]

    /// `signals`: SIGINT and SIGTERM unless told; a command run from a terminal adds SIGHUP.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM], _ stop: @escaping (Int32) -> Void) {
        numbers = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for number in numbers { signal(number, SIG_DFL) }
    }
}
