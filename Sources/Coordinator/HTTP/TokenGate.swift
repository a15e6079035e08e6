import FarmStore
import Foundation
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
        if let carried = OutputLink.carried(by: request) {
            // A signed link to one job's output stands in for a token, until it expires.
            try await Self.check(carried, store: store)
            return try await next(request, context)
        }
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
        if isSubmission(request) { return .submit }
        return .operate
    }

    /// What a `submit` token may do beside reading: queue jobs, keep templates, upload media
    /// and ask for a link to an output.
    static func isSubmission(_ request: Request) -> Bool {
        let parts = request.uri.path.split(separator: "/")
        switch (request.method, parts.count) {
        case (.post, 2): return parts[1] == "jobs" || parts[1] == "templates"
        case (.post, 4): return parts[1] == "templates" && parts[3] == "renders"
        case (.post, 5): return parts[1] == "jobs" && parts[3] == "output" && parts[4] == "link"
        case (.put, 3): return parts[1] == "media"
        default: return false
        }
    }

    private static func check(_ carried: (link: OutputLink, signature: String), store: StorePool) async throws {
        let now = Int64(Date().timeIntervalSince1970)
        guard carried.link.expires <= now + OutputLink.longest else {
            throw APIError(.forbidden, "this link claims to last beyond seven days: no link the farm makes does")
        }
        guard carried.link.expires >= now else {
            throw APIError(
                .forbidden, "this link expired at \(FarmStore.timestamp(Double(carried.link.expires)) ?? "")")
        }
        let secret = try await store.run { try $0.linkSecret() }
        guard carried.link.isSigned(by: carried.signature, secret: secret) else {
            throw APIError(.forbidden, "this link's signature does not match: ask for a new one")
        }
    }

}
