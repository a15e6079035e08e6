import FarmCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON bodies in and out. A request's body is JSON sent as JSON (`Content-Type:
/// application/json`, in UTF-8); whatever is wrong with it answers in the API's error shape,
/// naming the field and what it takes, never in Swift's own decoding text.
package enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The request's body decoded as `T` (`ifEmpty` for no body, when given).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, ifEmpty: T? = nil) async throws -> T {
        let bytes = try await Self.bytes(of: request, upTo: 1 << 20)
        if bytes.isEmpty, let ifEmpty { return ifEmpty }
        let value = try parse(bytes, of: request)
        do {
            return try JSONValueDecoder.decode(T.self, from: value)
        } catch let error as DecodingError {
            throw APIError(error, in: value)
        }
    }

    /// The request's body, at most `limit` bytes (413 beyond).
    static func bytes(of request: Request, upTo limit: Int) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the body is larger than \(limit >> 20) MiB")
        }
    }

    /// A body the call needs, parsed: 400 when there is none, 415 when it is not sent as JSON,
    /// 400 with the line and column of its first syntax error.
    package static func parse(_ bytes: [UInt8], of request: Request) throws -> JSONValue {
        guard !bytes.isEmpty else { throw APIError(.badRequest, "a JSON body is required") }
        let type = request.headers[.contentType]
        guard let type, isJSON(type) else {
            let got = type.map { "\"\($0.prefix(100))\"" } ?? "none"
            throw APIError(
                .unsupportedMediaType, "the body must be sent as Content-Type: application/json (got \(got))")
        }
        do {
            return try JSONParser.parse(bytes)
        } catch let error as JSONSyntaxError {
            throw APIError(.badRequest, "the body is not JSON: \(error)")
        }
    }

    /// `application/json`, alone or with `charset=utf-8`: the parser reads UTF-8 only.
    package static func isJSON(_ contentType: String) -> Bool {
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        return parts.first == "application/json"
            && parts.dropFirst().allSatisfy { $0 == "charset=utf-8" || $0 == "charset=\"utf-8\"" }
    }
}
