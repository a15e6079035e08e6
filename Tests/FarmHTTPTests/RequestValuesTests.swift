import FarmCore
import FarmHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing

/// What the API reads from a request and writes in its answers, without a server: query
/// parameters refused by name, JSON bodies told by their type, pages linked to the next.
@Suite struct RequestValuesTests {
    static func request(_ path: String, contentType: String? = nil) -> Request {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "farm", path: path)
        if let contentType { head.headerFields[.contentType] = contentType }
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func anIntegerQueryOutsideItsRangeOrNotANumberIsRefusedByName() throws {
        #expect(try Self.request("/api/jobs?limit=50").integerQuery("limit", in: 1...500) == 50)
        #expect(try Self.request("/api/jobs").integerQuery("limit", in: 1...500) == nil)
        for bad in ["0", "501", "x", "5.5", ""] {
            #expect {
                try Self.request("/api/jobs?limit=\(bad)").integerQuery("limit", in: 1...500)
            } throws: { error in
                let error = error as? APIError
                return error?.status == .badRequest && error?.path == "limit"
                    && error?.message == "expected an integer from 1 to 500"
            }
        }
    }

    @Test func aFlagQueryIsTrueFalseOrAbsent() throws {
        #expect(try Self.request("/api/jobs?all=true").flagQuery("all"))
        #expect(try !Self.request("/api/jobs?all=false").flagQuery("all"))
        #expect(try !Self.request("/api/jobs").flagQuery("all"))
        #expect(throws: APIError.self) { try Self.request("/api/jobs?all=yes").flagQuery("all") }
    }

    @Test func onlyJSONInUTF8IsTakenAsJSON() {
        for type in [
            "application/json", "Application/JSON", "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
        ] {
            #expect(JSONBody.isJSON(type), "\(type)")
        }
        for type in ["text/json", "application/json; charset=latin1", "application/jsonx", "", "application/json;"] {
            #expect(!JSONBody.isJSON(type), "\(type)")
        }
    }

    @Test func aBodyThatIsNotJSONIsRefusedWithWhatWasWrong() throws {
        let empty = Self.request("/api/jobs", contentType: "application/json")
        #expect { try JSONBody.parse([], of: empty) } throws: { ($0 as? APIError)?.status == .badRequest }
        let text = Self.request("/api/jobs", contentType: "text/plain")
        #expect { try JSONBody.parse(Array("{}".utf8), of: text) } throws: { error in
            let error = error as? APIError
            return error?.status == .unsupportedMediaType && error?.message.contains("(got \"text/plain\")") == true
        }
        #expect { try JSONBody.parse(Array("{\"a\": }".utf8), of: empty) } throws: { error in
            (error as? APIError)?.message.hasPrefix("the body is not JSON: ") == true
        }
        #expect(try JSONBody.parse(Array("{\"a\": 1}".utf8), of: empty) == .object([("a", .number("1"))]))
    }

    @Test func aFullPageLinksToTheNextAndAShortOneDoesNot() throws {
        let full = try NextPage.response([9, 8, 7], path: "/api/jobs", limit: 3) { Int64($0) }
        #expect(full.headers[.link] == "</api/jobs?limit=3&before=7>; rel=\"next\"")
        #expect(full.headers[.contentType] == "application/json")
        let short = try NextPage.response([9, 8], path: "/api/jobs", limit: 3) { Int64($0) }
        #expect(short.headers[.link] == nil)
    }
}
