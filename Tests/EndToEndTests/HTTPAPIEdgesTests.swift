import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// The API's edges: whatever is wrong with a call, on any route, answers in the API's JSON shape
/// (`{"error": …, "path": …}`), naming the field and the kind of value it takes; a body that is
/// not JSON, not sent as JSON or too large, and a call no route takes, included.
@Suite struct HTTPAPIEdgesTests {
    /// An answer with its headers (lowercased names).
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// `curl` with the body and content type exactly as given (nil: no header at all).
    static func send(
        _ method: String, _ url: String, token: String? = nil, body: String? = nil,
        contentType: String? = "application/json", bodyFile: URL? = nil
    ) throws -> Answer {
        // `Content-Type:` with no value: curl sends no such header.
        let type = "Content-Type:" + (contentType.map { " \($0)" } ?? "")
        var arguments = ["-s", "-D", "-", "-X", method, url, "-H", type]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        if let body { arguments += ["--data-binary", body] }
        if let bodyFile { arguments += ["--data-binary", "@\(bodyFile.path)"] }
        let output = try run("/usr/bin/curl", arguments).stdout
        guard let end = output.range(of: "\r\n\r\n") else { return Answer(status: 0, headers: [:], body: output) }
        var lines = output[..<end.lowerBound].components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Answer(status: status, headers: headers, body: String(output[end.upperBound...]))
    }

    @Test func everyErrorIsTheAPIsJSONNamingTheFieldAndItsKind() throws {
        try withTemporaryDirectory { dir in
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            let projectFile = try FarmTests.seamProject(in: media)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0", "--media-root", media.path])
            let base = try HTTPAPITests.baseURL(of: farm)
            let token = try farm.cli(["tokens", "create", "ops", "--role", "operate"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let job = try farm.submit(projectFile, output: dir.appendingPathComponent("out.mov"), chunkArguments: [])
            func expect(
                _ answer: Answer, _ status: Int, _ body: String, sourceLocation: SourceLocation = #_sourceLocation
            ) {
                #expect(answer.status == status, "\(answer.body)", sourceLocation: sourceLocation)
                #expect(answer.body == body, sourceLocation: sourceLocation)
                #expect(answer.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
            }

            // A body that fails to decode: the field's JSON path and the kind it takes, never
            // Swift's decoding text.
            let priority = "\(base)/api/jobs/\(job)/priority"
            let bodies: [(body: String, answer: String)] = [
                (#"{"priority":"#, #"{"error":"the body is not JSON: line 1, column 13: unexpected end of file"}"#),
                (#"{"priority":"x"}"#, #"{"error":"expected an integer, got a string","path":"priority"}"#),
                (#"{"priority":1.5}"#, #"{"error":"expected an integer, got 1.5","path":"priority"}"#),
                (
                    #"{"priority":99999999999999999999}"#,
                    #"{"error":"expected an integer from -9223372036854775808 to 9223372036854775807, "#
                        + #"got 99999999999999999999","path":"priority"}"#
                ),
                (#"{"priority":null}"#, #"{"error":"expected an integer, got null","path":"priority"}"#),
                ("{}", #"{"error":"is required","path":"priority"}"#),
                ("[7]", #"{"error":"expected an object as the body, got an array"}"#),
                ("", #"{"error":"a JSON body is required"}"#),
            ]
            for (body, answer) in bodies {
                expect(try Self.send("PUT", priority, token: token, body: body), 400, answer)
            }
            expect(
                try Self.send("POST", "\(base)/api/jobs/\(job)/retry", token: token, body: #"{"chunk":"x"}"#), 400,
                #"{"error":"expected an integer, got a string","path":"chunk"}"#)
            expect(
                try Self.send("POST", "\(base)/api/prune", token: token, body: #"{"olderThanSeconds":"soon"}"#), 400,
                #"{"error":"expected a number, got a string","path":"olderThanSeconds"}"#)
            expect(
                try Self.send("POST", "\(base)/api/session", body: #"{"token":5}"#), 400,
                #"{"error":"expected a string, got 5","path":"token"}"#)
            // Query parameters are read as strictly: none is taken for its default.
            expect(
                try Self.send("GET", "\(base)/api/jobs?limit=x", token: token), 400,
                #"{"error":"expected an integer from 1 to 1000","path":"limit"}"#)
            expect(
                try Self.send("GET", "\(base)/api/jobs/\(job)?all=yes", token: token), 400,
                #"{"error":"expected true or false","path":"all"}"#)
            expect(
                try Self.send("GET", "\(base)/api/jobs/\(job)/attempts?chunk=x", token: token), 400,
                #"{"error":"expected an integer from 0 to 2147483647","path":"chunk"}"#)

            // A body sent as anything but JSON is 415; `; charset=utf-8` is JSON, and a call
            // whose body is optional takes none without a type.
            let notJSON =
                #"{"error":"the body must be sent as Content-Type: application/json (got \"text/plain\")"}"#
            let three = #"{"priority":3}"#
            expect(try Self.send("PUT", priority, token: token, body: three, contentType: "text/plain"), 415, notJSON)
            expect(
                try Self.send("PUT", priority, token: token, body: three, contentType: nil), 415,
                #"{"error":"the body must be sent as Content-Type: application/json (got none)"}"#)
            expect(
                try Self.send(
                    "PUT", priority, token: token, body: three, contentType: "application/json; charset=latin1"),
                415,
                #"{"error":"the body must be sent as Content-Type: application/json "#
                    + #"(got \"application/json; charset=latin1\")"}"#)
            expect(
                try Self.send("POST", "\(base)/api/jobs", token: token, body: "{}", contentType: "text/plain"), 415,
                notJSON)
            expect(try Self.send("POST", "\(base)/api/session", body: "{}", contentType: "text/plain"), 415, notJSON)
            #expect(try farm.store.job(job)?.priority == 0, "nothing a refused call asked is done")
            let utf8 = try Self.send(
                "PUT", priority, token: token, body: three, contentType: "application/json; charset=utf-8")
            #expect(utf8.status == 200, "\(utf8.body)")
            #expect(try farm.store.job(job)?.priority == 3)
            #expect(
                try Self.send("POST", "\(base)/api/jobs/\(job)/cancel", token: token, contentType: nil).status == 200)
            let retried = try Self.send("POST", "\(base)/api/jobs/\(job)/retry", token: token, contentType: nil)
            #expect(retried.status == 200, "\(retried.body)")
            #expect(try farm.store.job(job)?.state == .queued)
            let large = dir.appendingPathComponent("large.json")
            try Data(#"{"priority": 1}"#.utf8 + [UInt8](repeating: 0x20, count: 2 << 20)).write(to: large)
            expect(
                try Self.send("PUT", priority, token: token, bodyFile: large), 413,
                #"{"error":"the body is larger than 1 MiB"}"#)

            // No such call: 404, or 405 with `Allow` when the path takes other methods.
            let nope = try Self.send("GET", "\(base)/api/nope", token: token)
            expect(nope, 404, #"{"error":"no such call: GET /api/nope"}"#)
            expect(try Self.send("GET", "\(base)/nope"), 404, #"{"error":"no such call: GET /nope"}"#)
            let delete = try Self.send("DELETE", "\(base)/api/jobs/\(job)", token: token)
            expect(delete, 405, #"{"error":"/api/jobs/\#(job) takes GET, not DELETE"}"#)
            #expect(delete.headers["allow"] == "GET")
            let put = try Self.send("PUT", "\(base)/api/jobs")
            expect(put, 405, #"{"error":"/api/jobs takes GET or POST, not PUT"}"#)
            #expect(put.headers["allow"] == "GET, POST")
        }
    }

    /// `POST /api/jobs`: each field's kind named as the decoder names it; `name` names the job
    /// as the project file's name does for `farm submit`, checked first.
    @Test func submissionsNameTheirFieldsAndTakeAName() throws {
        try withTemporaryDirectory { dir in
            let media = dir.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            let project = try String(contentsOf: FarmTests.seamProject(in: media), encoding: .utf8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(arguments: ["--http", "127.0.0.1:0", "--media-root", media.path])
            let base = try HTTPAPITests.baseURL(of: farm)
            let token = try farm.cli(["tokens", "create", "editor", "--role", "submit"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let output = dir.appendingPathComponent("out.mov").path
            func submit(_ fields: String) throws -> Answer {
                try Self.send("POST", "\(base)/api/jobs", token: token, body: #"{"project": \#(project), \#(fields)}"#)
            }
            let refused: [(fields: String, answer: String)] = [
                (#""output": 42"#, #"{"error":"expected a string, got 42","path":"output"}"#),
                (#""output": "\#(output)", "name": 5"#, #"{"error":"expected a string, got 5","path":"name"}"#),
                (#""output": "\#(output)", "name": """#, #"{"error":"must not be empty","path":"name"}"#),
                (#""output": "\#(output)", "name": "  ""#, #"{"error":"must not be empty","path":"name"}"#),
                (
                    #""output": "\#(output)", "name": "cut\u0007 1""#,
                    #"{"error":"must not hold control characters (U+0007)","path":"name"}"#
                ),
                (
                    #""output": "\#(output)", "name": "\#(String(repeating: "é", count: 201))""#,
                    #"{"error":"must be at most 200 characters (got 201)","path":"name"}"#
                ),
                (
                    #""output": "\#(output)", "priority": "high""#,
                    #"{"error":"expected an integer from -1000000 to 1000000, got a string","path":"priority"}"#
                ),
                (
                    #""output": "\#(output)", "overwrite": 1"#,
                    #"{"error":"expected true or false, got 1","path":"overwrite"}"#
                ),
                (
                    #""output": "\#(output)", "notify": []"#,
                    #"{"error":"expected a string, got an array","path":"notify"}"#
                ),
            ]
            for (fields, answer) in refused {
                let refusal = try submit(fields)
                #expect(refusal.status == 400 && refusal.body == answer, "\(fields): \(refusal.body)")
            }
            let notObject = try Self.send("POST", "\(base)/api/jobs", token: token, body: "[]")
            #expect(notObject.body == #"{"error":"expected an object as the body, got an array"}"#)
            #expect(try farm.store.connection.query("SELECT id FROM jobs").isEmpty)

            // Named as asked, and where the CLI keeps a job's name: `farm status` shows it.
            let named = try submit(#""output": "\#(output)", "name": "Trailer – v2""#)
            #expect(named.status == 201, "\(named.body)")
            let job = try JSONDecoder().decode(JobStatus.self, from: Data(named.body.utf8))
            #expect(job.name == "Trailer – v2")
            #expect(try farm.json([JobStatus].self, ["status"]).map(\.name) == ["Trailer – v2"])
            // Without a name, the project file's as before: `project`.
            let unnamed = try submit(#""output": "\#(dir.appendingPathComponent("out-2.mov").path)""#)
            #expect(try JSONDecoder().decode(JobStatus.self, from: Data(unnamed.body.utf8)).name == "project")
        }
    }
}
