import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// The dashboard's login: a token given once (`POST /api/session`) is kept by the browser in an
/// HttpOnly cookie, which page scripts cannot read, sent back only to this server and never
/// with another site's requests (SameSite=Strict, so no other page can act with it).
enum DashboardSession {
    static let cookieName = "farm_token"

    static func add(to router: Router<BasicRequestContext>, store: StoreQueue) {
        router.post("api/session") { request, _ in
            let body = try await JSONBody.decode(Login.self, from: request)
            let digest = APIToken.digest(of: body.token)
            guard let role = try await store.run({ try $0.tokenRole(digest: digest) }) else {
                throw APIError(.unauthorized, "unknown or revoked token", path: "token")
            }
            var response = try JSONBody.response(LoggedIn(role: role.rawValue))
            response.headers[.setCookie] =
                "\(cookieName)=\(body.token); Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000"
            return response
        }
        router.delete("api/session") { _, _ in
            var response = Response(status: .noContent)
            response.headers[.setCookie] = "\(cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
            return response
        }
    }

    /// The token among `Cookie` headers' values ("a=1; farm_token=…").
    static func token(inCookies headers: [String]) -> String? {
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
