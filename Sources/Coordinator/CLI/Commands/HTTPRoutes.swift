import ArgumentParser
import FarmHTTP

/// The HTTP API's routes as `farm serve --http` registers them, for ops/check-routes.py, which
/// compares them with docs/openapi.yaml: the file and the server cannot drift apart unnoticed.
struct HTTPRoutes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-routes",
        abstract: "Print the HTTP API's routes, one METHOD /path a line (for ops/check-routes.py).",
        shouldDisplay: false
    )

    func run() throws {
        for route in FarmHTTPServer.routes { print(route) }
    }
}
