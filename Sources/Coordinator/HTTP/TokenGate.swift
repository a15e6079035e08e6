import FarmStore
import HTTPTypes
import Hummingbird

/// Lets a request through only with a bearer token, or the dashboard's session cookie, whose
/// role covers what it asks: reading takes `read`, submitting `submit`, everything else
/// `operate` (`TokenRole`).
struct TokenGate<Context: RequestContext>: RouterMiddleware {
    let store: StorePool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let role = try await Self.role(of: request, store: store)
        let needed = Self.role(for: request)
        guard role >= needed else {
            throw APIError(.forbidden, "this token's role is \(role.rawValue); this call needs \(needed.rawValue)")
        }
        return try await next(request, context)
    }

    /// The role of the request's bearer token, or else of the dashboard's session its cookie
    /// names; 401 or 403 with the reason when neither lets it in.
    static func role(of request: Request, store: StorePool) async throws -> TokenRole {
        if let header = request.headers[.authorization] {
            guard header.hasPrefix("Bearer ") else {
                throw APIError(.unauthorized, "the Authorization header must be \"Bearer TOKEN\"")
            }
            let digest = APIToken.digest(of: String(header.dropFirst("Bearer ".count)))
            guard let role = try await store.run({ try $0.tokenRole(digest: digest) }) else {
                throw APIError(.unauthorized, "unknown or revoked token")
            }
            return role
        }
        guard let session = DashboardSession.session(inCookies: request.headers[values: .cookie]) else {
            throw APIError(.unauthorized, "a bearer token is needed (farm tokens create NAME --role read)")
        }
        if request.method != .get, request.method != .head, !isSameOrigin(request) {
            // The dashboard's cookie acts only for the dashboard's own page: another page the
            // browser has open (even on this host, another port) cannot use it to cancel or drain.
            throw APIError(.forbidden, "a change with the dashboard's cookie must come from the dashboard's page")
        }
        let digest = APIToken.digest(of: session)
        guard let role = try await store.run({ try $0.sessionRole(digest: digest) }) else {
            throw APIError(
                .unauthorized, "the dashboard's session has ended (logged out, expired or its token revoked)")
        }
        return role
    }

    /// Whether the browser says the request comes from this server's own page: its `Origin`
    /// is this server's address.
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin], let authority = request.head.authority else { return false }
        return origin == "http://\(authority)" || origin == "https://\(authority)"
    }

    static func role(for request: Request) -> TokenRole {
        if request.method == .get || request.method == .head { return .read }
        if request.method == .post && request.uri.path == "/api/jobs" { return .submit }
        return .operate
    }

}
