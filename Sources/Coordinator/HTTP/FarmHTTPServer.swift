import FarmCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP API served beside the coordinator (`farm serve --http HOST:PORT`), on threads of
/// its own: the coordinator's loop never waits on it.
public final class FarmHTTPServer: @unchecked Sendable {
    private let task: Task<Void, Error>
    private let done = DispatchSemaphore(value: 0)
    private let events: FarmEvents
    private let services: ServiceGroup
    /// The address it listens on ("http://127.0.0.1:8080"), once it does.
    public let url: String

    /// Starts serving `database`'s farm on `host`:`port` (0 picks a free port) and returns once
    /// it listens; throws when it cannot.
    ///
    /// Projects submitted over HTTP find their assets in `mediaRoot` (and only there); nil
    /// takes no submissions. Chunk thumbnails are read from the coordinator's `dataDirectory`.
    public init(
        database: String, host: String, port: Int, mediaRoot: URL?, dataDirectory: URL?,
        settings: HTTPSettings = HTTPSettings(), logger: Logger
    ) throws {
        let events = FarmEvents(database: database)
        self.events = events
        let router = APIRoutes.router(
            store: StorePool(database: database), submissions: SubmitRoute(mediaRoot: mediaRoot), events: events,
            dataDirectory: dataDirectory, settings: settings)
        let bound = Locked<Result<Int, Error>?>(nil)
        let listening = DispatchSemaphore(value: 0)
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "farm"),
            onServerRunning: { channel in
                bound.withLock { $0 = .success(channel.localAddress?.port ?? port) }
                listening.signal()
            }, logger: logger)
        let done = self.done
        // A service group, so that `stop` shuts the server down gracefully (requests in flight
        // answered) rather than cancelling it mid-request.
        let services = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        self.services = services
        task = Task {
            defer { done.signal() }
            do {
                try await services.run()
            } catch {
                if bound.current == nil {
                    bound.withLock { $0 = .failure(error) }
                    listening.signal()
                }
                throw error
            }
        }
        guard listening.wait(timeout: .now() + 30) == .success, let result = bound.current else {
            task.cancel()
            events.stop()
            throw FarmHTTPError(description: "the HTTP API did not start on \(host):\(port) within 30 s")
        }
        switch result {
        case .success(let actual):
            url = "http://\(host):\(actual)"
            events.start()
        case .failure(let error):
            throw FarmHTTPError(description: "the HTTP API cannot listen on \(host):\(port): \(error)")
        }
    }

    /// The calls the server answers, as its router holds them: `GET /api/jobs/{id}`, one a
    /// line, sorted. ops/check-routes.py compares them with docs/openapi.yaml.
    public static var routes: [String] {
        // Neither the pool nor the events connect before a call: nothing here touches a database.
        let router = APIRoutes.router(
            store: StorePool(database: ""), submissions: SubmitRoute(mediaRoot: nil),
            events: FarmEvents(database: ""), dataDirectory: nil)
        return router.routes.map { "\($0.method) \($0.path)" }.sorted()
    }

    /// Stops serving and waits for it.
    public func stop() {
        // Event streams end first: a page's open stream would hold the server's shutdown.
        events.stop()
        let services = services
        Task { await services.triggerGracefulShutdown() }
        done.wait()
    }
}

public struct FarmHTTPError: Error, CustomStringConvertible {
    public var description: String
}
