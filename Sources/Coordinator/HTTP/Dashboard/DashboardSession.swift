import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// The dashboard's login. A token given once (`POST /api/session`) opens a session; the browser
/// keeps only the session's id, in an HttpOnly cookie that page scripts cannot read, sent back
/// only to this server and never with another site's requests (SameSite=Strict). Logging out
/// ends the session in the database, as does revoking the token; the token itself never
/// reaches the browser's cookie jar.
enum DashboardSession {
    static let cookieName = "farm_session"
    /// Thirty days, then the dashboard asks for a token again.
    static let seconds = 30 * 86400

    static func add(to router: Router<BasicRequestContext>, store: StorePool) {
        router.post("api/session") { request, _ in
            try Self.refuseOtherPages(request)
            let body = try await JSONBody.decode(Login.self, from: request)
            let token = APIToken.digest(of: body.token)
            let session = APIToken.generate(prefix: "session_")
            let digest = APIToken.digest(of: session)
            guard
                let role = try await store.run({
                    try $0.openSession(token: token, session: digest, seconds: Double(seconds))
                })
            else {
                throw APIError(.unauthorized, "unknown or revoked token", path: "token")
            }
            var response = try JSONBody.response(LoggedIn(role: role.rawValue))
            response.headers[.setCookie] =
                "\(cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(seconds)"
            return response
        }
        // The page asks on load which role its cookie's session has, to show only the buttons
        // that role may use.
        router.get("api/session") { request, _ in
            let role = try await TokenGate<BasicRequestContext>.role(of: request, store: store)
            return try JSONBody.response(LoggedIn(role: role.rawValue))
        }
        router.delete("api/session") { request, _ in
            try Self.refuseOtherPages(request)
            if let session = Self.session(inCookies: request.headers[values: .cookie]) {
                let digest = APIToken.digest(of: session)
                try await store.run { try $0.closeSession(digest: digest) }
            }
            var response = Response(status: .noContent)
            response.headers[.setCookie] = "\(cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
            return response
        }
    }

    /// A browser says which page a request comes from (`Origin`): only the dashboard's own may
    /// log in or out, so that no other site can sign a browser in with a token of its choosing.
    /// Clients that are not browsers send no `Origin`.
    static func refuseOtherPages(_ request: Request) throws {
        if request.headers[.origin] != nil, !TokenGate<BasicRequestContext>.isSameOrigin(request) {
            throw APIError(.forbidden, "a dashboard login must come from the dashboard's page")
        }
    }

    /// The session id among `Cookie` headers' values ("a=1; farm_session=…").
    static func session(inCookies headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName, !parts[1].isEmpty { return String(parts[1]) }
            }
        }
        return nil
    }

    struct Login: Codable, Sendable { var token: String }
    struct LoggedIn: Codable, Sendable { var role: String }
}
