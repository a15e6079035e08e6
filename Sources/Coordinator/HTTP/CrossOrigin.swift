import HTTPTypes
import Hummingbird

/// CORS for the origins an operator allows (`farm serve --cors-origin https://app.example`):
/// a web app on another origin may call the API with a bearer token. A preflight (`OPTIONS`
/// with `Access-Control-Request-Method`) from an allowed origin is answered 204 here, before
/// any token is asked for; every answer to an allowed origin, errors included, says so. Other
/// origins get no CORS headers, so browsers keep them out. The dashboard's cookie is never
/// offered to other origins (no `Access-Control-Allow-Credentials`).
struct CrossOrigin<Context: RequestContext>: RouterMiddleware {
    /// Exact origins (`https://app.example:8443`), or `*` for any.
    let origins: [String]

    static var exposed: String {
        "Content-Range, Content-Length, Accept-Ranges, Link, Upload-Offset, Upload-Length, Idempotent-Replayed"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let origin = request.headers[.origin], origins.contains("*") || origins.contains(origin) else {
            return try await next(request, context)
        }
        let allowed = origins.contains("*") ? "*" : origin
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: allowed, .vary: "Origin",
                    .accessControlAllowMethods: "GET, HEAD, POST, PUT, DELETE",
                    .accessControlAllowHeaders:
                        "Authorization, Content-Type, Idempotency-Key, Range, Upload-Offset, Upload-Length",
                    .accessControlMaxAge: "600",
                ])
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.accessControlAllowOrigin] = allowed
        response.headers[.accessControlExposeHeaders] = Self.exposed
        response.headers.append(HTTPField(name: .vary, value: "Origin"))
        return response
    }
}
