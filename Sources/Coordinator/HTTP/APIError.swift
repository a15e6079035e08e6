import FarmCore
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// An API answer that is not a success: its status and a JSON body `{"error": "…"}` (with the
/// JSON `path` of a bad field when there is one), as the CLI would print it.
package struct APIError: Error, HTTPResponseError {
    package var status: HTTPResponse.Status
    package var message: String
    package var path: String?
    /// Every problem, when there are several (a project's): `[{"path": …, "error": …}]`.
    package var problems: [(path: String?, message: String)] = []
    /// Headers beside the body's type (a 405's `Allow`).
    var extraHeaders: HTTPFields = [:]

    package init(_ status: HTTPResponse.Status, _ message: String, path: String? = nil) {
        self.status = status
        self.message = message
        self.path = path
    }

    package var headers: HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers.append(contentsOf: extraHeaders)
        return headers
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = Body(
            error: message, path: path,
            problems: problems.isEmpty ? nil : problems.map { Body.Problem(error: $0.message, path: $0.path) })
        var response = try JSONBody.response(body, status: status)
        response.headers.append(contentsOf: extraHeaders)
        return response
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
    package static func problems(_ list: [(path: String?, message: String)]) -> APIError {
        var error = APIError(.badRequest, list.first?.message ?? "bad input", path: list.first?.path ?? nil)
        error.problems = list
        return error
    }

    /// The API's answer for an error a store call threw: no such job → 404, not in a state
    /// for it → 409, anything else → 500 with its text.
    package static func from(_ error: Error) -> APIError {
        switch error {
        case let error as APIError: return error
        case let error as FarmControlError:
            switch error {
            case .noSuchJob, .noSuchWorker, .noSuchChunk, .noSuchAudioBlock:
                return APIError(.notFound, error.description)
            case .conflict: return APIError(.conflict, error.description)
            }
        default: return APIError(.internalServerError, "\(error)")
        }
    }
}
