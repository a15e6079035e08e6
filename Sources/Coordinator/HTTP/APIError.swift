import FarmCore
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// An API answer that is not a success: its status and a JSON body `{"error": "…"}` (with the
/// JSON `path` of a bad field when there is one), as the CLI would print it.
struct APIError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String
    var path: String?
    /// Every problem, when there are several (a project's): `[{"path": …, "error": …}]`.
    var problems: [(path: String?, message: String)] = []

    init(_ status: HTTPResponse.Status, _ message: String, path: String? = nil) {
        self.status = status
        self.message = message
        self.path = path
    }

    var headers: HTTPFields { [.contentType: "application/json"] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            error: message, path: path,
            problems: problems.isEmpty ? nil : problems.map { Body.Problem(error: $0.message, path: $0.path) })
        return try JSONBody.response(body, status: status)
    }

    private struct Body: Encodable {
        struct Problem: Encodable {
            var error: String
            var path: String?
        }
        var error: String
        var path: String?
        var problems: [Problem]?
    }

    /// A 400 listing every problem; its `error` and `path` are the first one's.
    static func problems(_ list: [(path: String?, message: String)]) -> APIError {
        var error = APIError(.badRequest, list.first?.message ?? "bad input", path: list.first?.path ?? nil)
        error.problems = list
        return error
    }

    /// The API's answer for an error a store call threw: no such job → 404, not in a state
    /// for it → 409, anything else → 500 with its text.
    static func from(_ error: Error) -> APIError {
        switch error {
        case let error as APIError: return error
        case let error as FarmControlError:
            switch error {
            case .noSuchJob, .noSuchWorker, .noSuchChunk: return APIError(.notFound, error.description)
            case .conflict: return APIError(.conflict, error.description)
            }
        default: return APIError(.internalServerError, "\(error)")
        }
    }
}

/// JSON bodies in and out.
enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The request's body decoded as `T` (`ifEmpty` for no body, when given); a 400 naming
    /// what is wrong otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, ifEmpty: T? = nil) async throws -> T {
        let buffer = try await request.body.collect(upTo: 1 << 20)
        let bytes = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
        if bytes.isEmpty, let ifEmpty { return ifEmpty }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError(.badRequest, "is required", path: key.stringValue)
        } catch let DecodingError.typeMismatch(_, context) {
            throw APIError(
                .badRequest, context.debugDescription,
                path: context.codingPath.map(\.stringValue).joined(separator: "."))
        } catch {
            throw APIError(.badRequest, "the body is not the JSON this call takes: \(error)")
        }
    }
}
