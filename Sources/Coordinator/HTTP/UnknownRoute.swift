import HTTPTypes
import Hummingbird

/// The answer to a request no route takes: 405 with `Allow` when its path is a route's with
/// another method, else 404, both in the API's JSON shape (Hummingbird answers both with an
/// empty 404). Added to the router after every route, so that only those requests pass it.
struct UnknownRoute<Context: RequestContext>: RouterMiddleware {
    struct Route: Sendable {
        var method: HTTPRequest.Method
        var path: RouterPath
    }

    let routes: [Route]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        let segments = path.split(separator: "/")
        let methods = routes.filter { route in
            route.path.components.count == segments.count
                && zip(route.path.components, segments).allSatisfy { $0 ~= $1 }
        }.map(\.method.rawValue)
        guard !methods.isEmpty else { throw APIError(.notFound, "no such call: \(request.method) \(path)") }
        let allowed = methods.sorted()
        var error = APIError(
            .methodNotAllowed, "\(path) takes \(allowed.joined(separator: " or ")), not \(request.method)")
        error.extraHeaders[.allow] = allowed.joined(separator: ", ")
        throw error
    }
}
