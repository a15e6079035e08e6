import FarmCore
import FarmHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// How the API tells one request from another without a server: an Idempotency-Key's bounds
/// and the digest that ties it to one call, and a body of the wrong shape named by its JSON path.
@Suite struct RequestIdentityTests {
    static func post(_ path: String, key: String?) -> Request {
        var head = HTTPRequest(method: .post, scheme: "http", authority: "farm", path: path)
        if let key { head.headerFields[IdempotencyKey.header] = key }
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func anIdempotencyKeyIsVisibleASCIIAndItsDigestIsTheCallsPathAndBody() throws {
        let body = Array("{\"name\": \"a\"}".utf8)
        #expect(try IdempotencyKey(request: Self.post("/api/jobs", key: nil), body: body) == nil)
        for bad in ["", "has space", "é", String(repeating: "k", count: 256)] {
            #expect {
                try IdempotencyKey(request: Self.post("/api/jobs", key: bad), body: body)
            } throws: { error in
                let error = error as? APIError
                return error?.status == .badRequest && error?.path == "Idempotency-Key"
            }
        }
        let key = String(repeating: "k", count: 255)
        let first = try #require(try IdempotencyKey(request: Self.post("/api/jobs", key: key), body: body))
        let again = try #require(try IdempotencyKey(request: Self.post("/api/jobs", key: key), body: body))
        let otherBody = try #require(
            try IdempotencyKey(request: Self.post("/api/jobs", key: key), body: Array("{\"name\": \"b\"}".utf8)))
        let otherPath = try #require(
            try IdempotencyKey(request: Self.post("/api/templates/t/render", key: key), body: body))
        #expect(first.key == key)
        #expect(first.digest == again.digest)
        #expect(first.digest != otherBody.digest)
        #expect(first.digest != otherPath.digest)
        #expect(first.digest.count == 64)
    }

    struct Call: Decodable {
        struct Output: Decodable { var width: Int32 }
        var priority: Int
        var output: Output
        var tags: [String]?
    }

    /// The decoder's error for `text`, as the API words it.
    static func refusal(_ text: String) throws -> APIError {
        let body = try JSONParser.parse(Array(text.utf8))
        do {
            _ = try JSONValueDecoder.decode(Call.self, from: body)
        } catch let error as DecodingError {
            return APIError(error, in: body)
        }
        throw APIError(.badRequest, "decoded")
    }

    @Test func aBodyOfTheWrongShapeIsRefusedAtItsJSONPathInTheAPIsWords() throws {
        let wrongKind = try Self.refusal(#"{"priority": "high", "output": {"width": 640}}"#)
        #expect(wrongKind.path == "priority")
        #expect(wrongKind.message == "expected an integer, got a string")
        let tooBig = try Self.refusal(#"{"priority": 1, "output": {"width": 9999999999}}"#)
        #expect(tooBig.path == "output.width")
        #expect(tooBig.message == "expected an integer from -2147483648 to 2147483647, got 9999999999")
        let missing = try Self.refusal(#"{"priority": 1}"#)
        #expect(missing.path == "output")
        #expect(missing.message == "is required")
        let element = try Self.refusal(#"{"priority": 1, "output": {"width": 1}, "tags": ["a", 2]}"#)
        #expect(element.path == "tags[1]")
        #expect(element.message == "expected a string, got 2")
        #expect(wrongKind.status == .badRequest && missing.status == .badRequest)
    }
}
