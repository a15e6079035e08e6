import FarmCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `PUT /api/media/{sha256}` and `GET /api/media/{sha256}`: resumable, content-addressed
/// uploads into the media root (`MediaUploads`), in the manner of tus: the client names the
/// file by its SHA-256, sends `Upload-Length` (the whole size) and `Upload-Offset` (where these
/// bytes begin; 0 when absent), and after a cut connection asks `GET` how much arrived.
struct MediaRoutes: Sendable {
    let uploads: MediaUploads?
    /// Digests being received now: one request at a time writes a file.
    private let receiving = Locked<Set<String>>([])
    /// Where a finished upload is hashed: concurrent, so that one large file's digest holds up
    /// no other upload.
    private let hashing = DispatchQueue(label: "farm.http.media", attributes: .concurrent)

    init(uploads: MediaUploads?) {
        self.uploads = uploads
    }

    static let offsetHeader = HTTPField.Name("Upload-Offset")!
    static let lengthHeader = HTTPField.Name("Upload-Length")!

    func add(to api: RouterGroup<BasicRequestContext>) {
        api.put("media/:sha256") { request, context in try await put(request, context: context) }
        api.get("media/:sha256") { _, context in
            let (uploads, digest) = try uploadTarget(context)
            guard let status = uploads.status(digest) else {
                throw APIError(.notFound, "nothing of \(digest) has been uploaded", path: "sha256")
            }
            return try Self.answer(status, code: .ok)
        }
    }

    private func uploadTarget(_ context: BasicRequestContext) throws -> (MediaUploads, String) {
        guard let uploads else {
            throw APIError(.conflict, "this farm takes no uploads: start farm serve with --media-root DIR")
        }
        do {
            return (uploads, try MediaUploads.checkDigest(try context.parameters.require("sha256")))
        } catch let problem as MediaUploads.Problem {
            throw Self.apiError(problem)
        }
    }

    private func put(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let (uploads, digest) = try uploadTarget(context)
        let name = try request.uri.queryParameters.get("name").map { text in
            do { return try MediaUploads.checkName(text) } catch let problem as MediaUploads.Problem {
                throw Self.apiError(problem)
            }
        }
        if let kept = try uploads.kept(digest, name: name) {
            // Content-addressed: what is here already is this file; its bytes need not come.
            return try Self.answer(kept, code: .ok)
        }
        guard let lengthText = request.headers[Self.lengthHeader], let length = Int64(lengthText), length >= 0 else {
            throw APIError(
                .badRequest, "Upload-Length is required: the whole file's size in bytes", path: "Upload-Length")
        }
        let offsetText = request.headers[Self.offsetHeader] ?? "0"
        guard let offset = Int64(offsetText), offset >= 0 else {
            throw APIError(.badRequest, "Upload-Offset must be a byte count (got \(offsetText))", path: "Upload-Offset")
        }
        guard receiving.withLock({ $0.insert(digest).inserted }) else {
            throw APIError(.conflict, "an upload of \(digest) is being received now; resume once it ends")
        }
        defer { _ = receiving.withLock { $0.remove(digest) } }
        if let kept = try uploads.kept(digest, name: name) {
            // Completed by another request between the look above and the lock.
            return try Self.answer(kept, code: .ok)
        }
        do {
            let handle = try uploads.begin(digest, offset: offset, length: length)
            var received = offset
            do {
                defer { try? handle.close() }
                for try await buffer in request.body {
                    received += Int64(buffer.readableBytes)
                    try handle.write(contentsOf: buffer.readableBytesView)
                    if received > length { break }
                }
            } catch {
                // A cut connection: what arrived stays, for the next request to go on from.
                throw APIError(.badRequest, "the upload stopped at byte \(received): \(error)")
            }
            let status = try await hashing.run { try uploads.finish(digest, name: name) }
            return try Self.answer(status, code: status.complete ? .created : .accepted)
        } catch let problem as MediaUploads.Problem {
            throw Self.apiError(problem)
        }
    }

    private static func answer(_ status: MediaUploads.Status, code: HTTPResponse.Status) throws -> Response {
        var response = try JSONBody.response(status, status: code)
        response.headers[offsetHeader] = String(status.received)
        response.headers[lengthHeader] = String(status.size)
        return response
    }

    static func apiError(_ problem: MediaUploads.Problem) -> APIError {
        switch problem {
        case .badDigest(let text):
            return APIError(.badRequest, "a file is named by its SHA-256, 64 hex digits (got \(text))", path: "sha256")
        case .badName(let name):
            return APIError(
                .badRequest, "a name is a plain file name: no /, not starting with . (got \(name))", path: "name")
        case .tooLarge(let length, let limit):
            return APIError(
                .contentTooLarge,
                "Upload-Length \(length) is beyond this farm's limit of \(limit) bytes (--media-limit)",
                path: "Upload-Length")
        case .otherLength(let promised, let given):
            return APIError(
                .conflict, "this upload was begun with Upload-Length \(promised), not \(given)", path: "Upload-Length")
        case .wrongOffset(let received, let given):
            var error = APIError(
                .conflict,
                "\(received) bytes of this file are here: resume with Upload-Offset: \(received) (got \(given))",
                path: "Upload-Offset")
            error.extraHeaders[offsetHeader] = String(received)
            return error
        case .beyondLength(let length):
            return APIError(
                .conflict, "more bytes than Upload-Length \(length); the extra ones were dropped", path: "Upload-Length"
            )
        case .digestMismatch(let expected, let got, let bytes):
            return APIError(
                .unprocessableContent,
                "the \(bytes) bytes received have SHA-256 \(got), not \(expected): nothing was stored; "
                    + "upload the file again from Upload-Offset 0", path: "sha256")
        }
    }
}
