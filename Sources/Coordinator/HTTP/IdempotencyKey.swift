import FarmCore
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// A POST's `Idempotency-Key` (the IETF draft's header, as Stripe and the hosted renderers take
/// it): a client that lost the answer sends the request again under the same key and gets the
/// job it made, not a second one. The key is kept with its job and a digest of what was asked
/// (the call's path and body); the same key with another request is refused.
package struct IdempotencyKey: Sendable {
    package static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    package let key: String
    package let digest: String

    /// Nil when the request carries none.
    package init?(request: Request, body: [UInt8]) throws {
        guard let key = request.headers[Self.header] else { return nil }
        guard (1...255).contains(key.utf8.count), key.unicodeScalars.allSatisfy({ (0x21...0x7e).contains($0.value) })
        else {
            throw APIError(
                .badRequest, "an Idempotency-Key is 1 to 255 visible ASCII characters (a UUID does)",
                path: "Idempotency-Key")
        }
        self.key = key
        let hasher = SHA256()
        hasher.update(Array("\(request.method.rawValue) \(request.uri.path)\n".utf8))
        hasher.update(body)
        digest = hasher.finish()
    }

    /// The answer for a request made before under this key: its job as it is now; nil when
    /// the key is new.
    func earlierJob(store: StorePool) async throws -> Response? {
        let key = key
        let digest = digest
        let status = try await APIRoutes.answerValue(store) { store -> JobStatus? in
            guard let earlier = try store.job(idempotencyKey: key) else { return nil }
            guard earlier.digest == digest else {
                throw APIError(
                    .unprocessableContent,
                    "Idempotency-Key \(key) was used for another request (job \(earlier.id)); "
                        + "use a new key for a new job",
                    path: "Idempotency-Key")
            }
            return try store.jobStatuses(id: earlier.id).first
        }
        guard let status else { return nil }
        var response = try JSONBody.response(status, status: .ok)
        response.headers[Self.replayed] = "true"
        return response
    }
}
