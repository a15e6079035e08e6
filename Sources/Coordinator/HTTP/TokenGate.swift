import FarmStore
import HTTPTypes
import Hummingbird

/// Lets a request through only with a bearer token whose role covers what it asks: reading
/// takes `read`, submitting `submit`, everything else `operate` (`TokenRole`).
struct TokenGate<Context: RequestContext>: RouterMiddleware {
    let store: StoreQueue

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw APIError(.unauthorized, "a bearer token is needed (farm tokens create NAME --role read)")
        }
        let digest = APIToken.digest(of: String(header.dropFirst("Bearer ".count)))
        guard let role = try await store.run({ try $0.tokenRole(digest: digest) }) else {
            throw APIError(.unauthorized, "unknown or revoked token")
        }
        let needed = Self.role(for: request)
        guard role >= needed else {
            throw APIError(.forbidden, "this token's role is \(role.rawValue); this call needs \(needed.rawValue)")
        }
        return try await next(request, context)
    }

    static func role(for request: Request) -> TokenRole {
        if request.method == .get || request.method == .head { return .read }
        if request.method == .post && request.uri.path == "/api/jobs" { return .submit }
        return .operate
    }

}
