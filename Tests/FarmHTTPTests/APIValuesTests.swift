import FarmCore
import FarmHTTP
import FarmStore
import Foundation
import Testing

/// Values the API answers with, without a server: store errors as statuses, several problems
/// as one 400, template JSON written back as it was read, and tokens.
@Suite struct APIValuesTests {
    @Test func storeErrorsBecomeNotFoundConflictOrServerError() {
        #expect(APIError.from(FarmControlError.noSuchJob(7)).status == .notFound)
        #expect(APIError.from(FarmControlError.noSuchWorker("w")).status == .notFound)
        #expect(APIError.from(FarmControlError.noSuchChunk(job: 1, index: 2)).status == .notFound)
        #expect(APIError.from(FarmControlError.noSuchAudioBlock(job: 1, index: 2)).status == .notFound)
        let conflict = APIError.from(FarmControlError.conflict("job 3 is done"))
        #expect(conflict.status == .conflict)
        #expect(conflict.message == FarmControlError.conflict("job 3 is done").description)
        struct Other: Error {}
        #expect(APIError.from(Other()).status == .internalServerError)
        let own = APIError(.forbidden, "no", path: "x")
        #expect(APIError.from(own).status == .forbidden)
        #expect(APIError.from(own).path == "x")
    }

    @Test func severalProblemsAreOneBadRequestLedByTheFirst() {
        let error = APIError.problems([(path: "tracks[0].items[1].at", message: "not a time"), (nil, "no output")])
        #expect(error.status == .badRequest)
        #expect(error.message == "not a time")
        #expect(error.path == "tracks[0].items[1].at")
        #expect(error.problems.count == 2)
        let empty = APIError.problems([])
        #expect(empty.message == "bad input")
        #expect(empty.path == nil)
        #expect(empty.headers[.contentType] == "application/json")
    }

    @Test func templateJSONIsWrittenBackAsTheValueItWasWithTheAPIsSortedKeys() throws {
        let value = JSONValue.object([
            ("z", .number("3")), ("a", .number("1.5")), ("list", .array([.bool(true), .null, .string("é\"")])),
            ("nested", .object([("b", .number("-2")), ("a", .number("0"))])),
        ])
        // The encoder of every API answer (`JSONBody`).
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(JSONText(value)), as: UTF8.self)
        #expect(text == #"{"a":1.5,"list":[true,null,"é\""],"nested":{"a":0,"b":-2},"z":3}"#)
    }

    @Test func tokensAreTheirPrefixAnd64HexDigitsStoredAsTheirSHA256() {
        let token = APIToken.generate()
        #expect(token.hasPrefix("farm_"))
        let hex = token.dropFirst("farm_".count)
        #expect(hex.count == 64)
        #expect(hex.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(APIToken.generate() != token)
        #expect(APIToken.generate(prefix: "session_").hasPrefix("session_"))
        #expect(APIToken.digest(of: token) == SHA256.hex(of: token))
        #expect(APIToken.digest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
