import FarmCore
import FarmStore
import Foundation

/// What the dashboard's live updates come from: one thread with one database connection that
/// LISTENs to `farm` (the channel the CLI's live views use) and hands each subscriber the ids
/// of the jobs that changed. However many pages are open, the database sees one listener.
///
/// Notices come in bursts (every worker's progress), so they are gathered for a quarter of a
/// second; every five quiet seconds subscribers get a `tick`, so that pages refresh the farm's
/// liveness and workers, and notice a server that went away.
final class FarmEvents: @unchecked Sendable {
    enum Event: Sendable, Equatable {
        case jobs([Int64])
        case tick
    }

    private let database: String
    private let stopFlag = StopFlag()
    private let subscribers = Locked<[UUID: AsyncStream<Event>.Continuation]>([:])
    private var thread: Thread?

    init(database: String) {
        self.database = database
    }

    func start() {
        let thread = Thread { [self] in listen() }
        thread.name = "farm.http.events"
        self.thread = thread
        thread.start()
    }

    /// Ends every subscriber's stream and the listening thread.
    func stop() {
        let open = subscribers.withLock { subscribers in
            stopFlag.raise()
            return subscribers.values
        }
        for continuation in open { continuation.finish() }
    }

    /// A stream of events until the subscriber goes away or the server stops.
    func subscribe() -> AsyncStream<Event> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(8))
        continuation.onTermination = { [subscribers] _ in subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        let admitted = subscribers.withLock { subscribers in
            if stopFlag.isRaised { return false }
            subscribers[id] = continuation
            return true
        }
        if !admitted { continuation.finish() }
        return stream
    }

    private func publish(_ event: Event) {
        for continuation in subscribers.withLock({ $0.values }) { continuation.yield(event) }
    }

    private func listen() {
        var store: FarmStore?
        var lastEvent = Date()
        while !stopFlag.isRaised {
            do {
                let connected = try store ?? FarmStore(url: database, role: .client)
                if store == nil { try connected.listen(.farm) }
                store = connected
                var payloads = try connected.notifications(timeout: .seconds(1))
                if !payloads.isEmpty {
                    Thread.sleep(forTimeInterval: 0.25)
                    payloads += try connected.notifications(timeout: .zero)
                    let jobs = Set(payloads.compactMap { Int64($0) }).sorted()
                    publish(.jobs(jobs))
                    lastEvent = Date()
                } else if Date().timeIntervalSince(lastEvent) >= 5 {
                    publish(.tick)
                    lastEvent = Date()
                }
            } catch {
                // The database is away: pages keep their last view and hear ticks; try again.
                store = nil
                publish(.tick)
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }
}
