import FarmCore
import Foundation
import TestSupport
import Testing

/// What an app needs to drive the farm over HTTP alone: uploads that resume and check their
/// digest, outputs by byte range and signed link, idempotent submissions, cursor pages, CORS,
/// and templates kept and rendered with merge values.
@Suite struct HTTPAppsTests {
    /// Sends `PUT path` promising `length` bytes but sending only `bytes`, then closes the
    /// connection: what a client cut off mid-upload does.
    static func cutUpload(_ base: String, path: String, token: String, length: Int, bytes: URL) throws {
        let script = """
            import socket, sys, time
            host, port = sys.argv[1].split("//")[1].split(":")
            data = open(sys.argv[4], "rb").read()
            s = socket.create_connection((host, int(port)))
            s.sendall((f"PUT {sys.argv[2]} HTTP/1.1\\r\\nHost: {host}\\r\\nAuthorization: Bearer {sys.argv[3]}\\r\\n"
                       f"Upload-Length: {sys.argv[5]}\\r\\nContent-Length: {sys.argv[5]}\\r\\n\\r\\n").encode() + data)
            time.sleep(0.5)
            s.close()
            """
        let result = try run("/usr/bin/python3", ["-c", script, base, path, token, bytes.path, String(length)])
        #expect(result.status == 0, "\(result.stderr)")
    }

    static func put(_ base: String, _ path: String, token: String, file: URL, headers: [String]) throws
        -> HTTPAPITests.Answer
    {
        try HTTPAPITests.call("PUT", "\(base)\(path)", token: token, headers: headers, file: file)
    }

    @Test func aCutUploadResumesFromItsHalfAndAWrongDigestStoresNothing() throws {
        try withTemporaryDirectory { dir in
            let (farm, base, token, media, _) = try PythonClientTests.startFarm(in: dir)
            defer { farm.stopAll() }
            let clip = try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=320x180:rate=25:duration=2")
            let bytes = try Data(contentsOf: clip)
            let digest = try SHA256.file(clip.path)
            let half = bytes.count / 2
            try bytes.prefix(half).write(to: dir.appendingPathComponent("first"))
            try bytes.suffix(from: half).write(to: dir.appendingPathComponent("second"))
            let path = "/api/media/\(digest)?name=clip.mp4"
            try Self.cutUpload(
                base, path: path, token: token, length: bytes.count, bytes: dir.appendingPathComponent("first"))
            // The half that arrived is kept, and said to be.
            var status: [String: Any] = [:]
            try farm.wait("the cut upload's bytes", timeout: 30) {
                let answer = try HTTPAPITests.call("GET", "\(base)/api/media/\(digest)", token: token)
                status = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]) ?? [:]
                return status["received"] as? Int == half
            }
            #expect(status["complete"] as? Bool == false && status["size"] as? Int == bytes.count, "\(status)")
            // Sending the first half again is refused; the second half from there completes it.
            let again = try Self.put(
                base, path, token: token, file: clip, headers: ["Upload-Length: \(bytes.count)", "Upload-Offset: 0"])
            #expect(again.status == 409, "\(again.body)")
            #expect(again.body.contains("resume with Upload-Offset: \(half)"), "\(again.body)")
            let rest = try Self.put(
                base, path, token: token, file: dir.appendingPathComponent("second"),
                headers: ["Upload-Length: \(bytes.count)", "Upload-Offset: \(half)"])
            #expect(rest.status == 201, "\(rest.body)")
            #expect(rest.body.contains("\"path\":\"uploads/sha256/\(digest)\""), "\(rest.body)")
            #expect(try Data(contentsOf: media.appendingPathComponent("uploads/sha256/\(digest)")) == bytes)
            #expect(try Data(contentsOf: media.appendingPathComponent("uploads/clip.mp4")) == bytes)
            // Content-addressed: the same file again needs none of its bytes.
            let known = try HTTPAPITests.call("PUT", "\(base)/api/media/\(digest)", token: token)
            #expect(known.status == 200 && known.body.contains("\"complete\":true"), "\(known.body)")

            // A wrong digest: refused once the bytes are in, and nothing is kept.
            let wrong = String(repeating: "0", count: 64)
            let refused = try Self.put(
                base, "/api/media/\(wrong)", token: token, file: clip, headers: ["Upload-Length: \(bytes.count)"])
            #expect(refused.status == 422, "\(refused.body)")
            #expect(
                refused.body.contains("have SHA-256 \(digest), not \(wrong): nothing was stored"), "\(refused.body)")
            #expect(
                !FileManager.default.fileExists(atPath: media.appendingPathComponent("uploads/sha256/\(wrong)").path))
            #expect(try HTTPAPITests.call("GET", "\(base)/api/media/\(wrong)", token: token).status == 404)
            #expect(
                try FileManager.default.contentsOfDirectory(
                    atPath: media.appendingPathComponent("uploads/.partial").path
                )
                .isEmpty)
            // Beyond --media-limit: refused before a byte is kept.
            let large = try Self.put(
                base, "/api/media/\(wrong)", token: token, file: clip, headers: ["Upload-Length: 100000001"])
            #expect(large.status == 413, "\(large.body)")
            #expect(large.body.contains("beyond this farm's limit of 100000000 bytes (--media-limit)"), "\(large.body)")
            // A read token uploads nothing.
            let read = try farm.cli(["tokens", "create", "reader", "--role", "read"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                try Self.put(base, "/api/media/\(wrong)", token: read, file: clip, headers: ["Upload-Length: 1"]).status
                    == 403)
        }
    }

    @Test func templatesIdempotencyPagesRangesLinksAndCORS() throws {
        try withTemporaryDirectory { dir in
            let (farm, base, token, _, out) = try PythonClientTests.startFarm(in: dir)
            defer { farm.stopAll() }
            let project = """
                {"fields": {"CITY": {"type": "string"}, "LEVEL": {"type": "number", "default": 1}},
                 "output": {"width": 96, "height": 64, "fps": "25"}, "assets": {},
                 "tracks": [{"kind": "video", "items": [{"solid": "#204080", "at": "0", "duration": "0.4",
                                                         "opacity": "{{ LEVEL }}"}]},
                            {"kind": "video",
                             "items": [{"title": {"text": "{{ CITY }}"}, "at": "0", "duration": "0.4"}]}]}
                """
            let made = try HTTPAPITests.call(
                "POST", "\(base)/api/templates", token: token, body: #"{"name": "promo", "project": \#(project)}"#)
            #expect(made.status == 201, "\(made.body)")
            #expect(made.body.contains(#""fields":[{"name":"CITY","type":"string"},{"default":1,"name":"LEVEL""#))
            let noFields = try HTTPAPITests.call(
                "POST", "\(base)/api/templates", token: token, body: #"{"project": {"assets": {}, "tracks": []}}"#)
            #expect(noFields.status == 400 && noFields.body.contains(#""path":"project.fields""#), "\(noFields.body)")

            // Problems by path: a value in the body's merge, a missing one where it is used.
            let output = out.appendingPathComponent("a.mp4").path
            let badValue = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token,
                body: #"{"merge": {"CITY": "Oslo", "LEVEL": "x"}, "output": "\#(output)"}"#)
            #expect(badValue.status == 400, "\(badValue.body)")
            #expect(
                badValue.body.contains(#""error":"expected a number for LEVEL, got a string","path":"merge.LEVEL""#))
            let missing = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token, body: #"{"output": "\#(output)"}"#)
            #expect(missing.body.contains(#""path":"template.tracks[1].items[0].title.text""#), "\(missing.body)")

            // One Idempotency-Key, sent twice: one job, the second answer replayed.
            let body = #"{"merge": {"CITY": "Oslo"}, "output": "\#(output)"}"#
            let first = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token, body: body, headers: ["Idempotency-Key: k-1"])
            let second = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token, body: body, headers: ["Idempotency-Key: k-1"])
            #expect(first.status == 201 && second.status == 200, "\(first.body) \(second.body)")
            let job = try JSONDecoder().decode(JobStatusID.self, from: Data(first.body.utf8)).id
            #expect(try JSONDecoder().decode(JobStatusID.self, from: Data(second.body.utf8)).id == job)
            let other = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token,
                body: #"{"merge": {"CITY": "Rio"}, "output": "\#(output)"}"#, headers: ["Idempotency-Key: k-1"])
            #expect(other.status == 422 && other.body.contains("was used for another request (job \(job))"))
            #expect(try farm.store.jobStatuses().count == 1)
            _ = try farm.finish(job)

            // The output whole, by range, and by a signed link without a token.
            let outputURL = "\(base)/api/jobs/\(job)/output"
            let whole = try run(
                "/usr/bin/curl",
                [
                    "-s", "-o", dir.appendingPathComponent("dl.mp4").path, "-H",
                    "Authorization: Bearer \(token)", outputURL,
                ])
            #expect(whole.status == 0)
            let file = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(try Data(contentsOf: dir.appendingPathComponent("dl.mp4")) == file)
            let range = try run(
                "/usr/bin/curl",
                [
                    "-s", "-D", "-", "-o", dir.appendingPathComponent("part").path, "-H",
                    "Authorization: Bearer \(token)", "-H", "Range: bytes=10-19", outputURL,
                ])
            #expect(
                range.stdout.contains("206 Partial Content")
                    && range.stdout.contains("Content-Range: bytes 10-19/\(file.count)"))
            #expect(try Data(contentsOf: dir.appendingPathComponent("part")) == file[10..<20])
            let outside = try HTTPAPITests.call(
                "GET", outputURL, token: token, headers: ["Range: bytes=\(file.count)-"])
            #expect(outside.status == 416)
            // B before A is no range (RFC 9110): the whole file.
            let backwards = try run(
                "/usr/bin/curl",
                [
                    "-s", "-o", dir.appendingPathComponent("all").path, "-w", "%{http_code}", "-H",
                    "Authorization: Bearer \(token)", "-H", "Range: bytes=19-10", outputURL,
                ])
            #expect(backwards.stdout == "200")
            #expect(try Data(contentsOf: dir.appendingPathComponent("all")) == file)
            let link = try HTTPAPITests.call(
                "POST", "\(outputURL)/link", token: token, body: #"{"expiresInSeconds": 60}"#)
            #expect(link.status == 201, "\(link.body)")
            let path =
                (try JSONSerialization.jsonObject(with: Data(link.body.utf8)) as? [String: Any])?["url"] as? String
                ?? ""
            #expect(
                try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(base)\(path)"]).stdout
                    == "200")
            let forged = path.replacingOccurrences(of: "output?expires=", with: "output?expires=1")
            #expect(try HTTPAPITests.call("GET", "\(base)\(forged)").status == 403)
            // The link's query opens this job's output alone: not its QC report, not another job's file.
            let query = String(path[path.range(of: "?")!.lowerBound...])
            #expect(try HTTPAPITests.call("GET", "\(base)/api/jobs/\(job)/qc\(query)").status == 401)
            #expect(try HTTPAPITests.call("GET", "\(base)/api/jobs/\(job + 1)/output\(query)").status == 403)
            // Nor does one that claims to last longer than a link can.
            let far = Int(Date().timeIntervalSince1970) + 8 * 86400
            #expect(
                try HTTPAPITests.call("GET", "\(base)/api/jobs/\(job)/output?expires=\(far)&signature=00").status == 403
            )

            // `after` over HTTP: an unknown job is refused; a done one is waited on for nothing.
            let unknownAfter = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token,
                body: #"{"merge": {"CITY": "X"}, "output": "\#(out.path)/x.mp4", "after": [999]}"#)
            #expect(unknownAfter.status == 404 && unknownAfter.body.contains("no job 999"), "\(unknownAfter.body)")
            let badAfter = try HTTPAPITests.call(
                "POST", "\(base)/api/templates/1/renders", token: token,
                body: #"{"merge": {"CITY": "X"}, "output": "\#(out.path)/x.mp4", "after": ["1"]}"#)
            #expect(badAfter.status == 400 && badAfter.body.contains(#""path":"after[0]""#), "\(badAfter.body)")

            // Pages: newest first, a cursor in Link.
            for city in ["A", "B"] {
                let answer = try HTTPAPITests.call(
                    "POST", "\(base)/api/templates/1/renders", token: token,
                    body: #"{"merge": {"CITY": "\#(city)"}, "output": "\#(out.appendingPathComponent(city).path).mp4"}"#
                )
                #expect(answer.status == 201, "\(answer.body)")
            }
            let page = try run(
                "/usr/bin/curl",
                [
                    "-s", "-D", "-", "-H", "Authorization: Bearer \(token)",
                    "\(base)/api/jobs?limit=2",
                ])
            let pageBody = String(page.stdout[page.stdout.range(of: "\r\n\r\n")!.upperBound...])
            let newest = try JSONDecoder().decode([JobStatusID].self, from: Data(pageBody.utf8)).map(\.id)
            #expect(newest.count == 2 && newest[0] > newest[1] && newest[1] > job, "\(newest)")
            #expect(
                page.stdout.contains("Link: </api/jobs?limit=2&before=\(newest[1])>; rel=\"next\""), "\(page.stdout)")
            let next = try HTTPAPITests.call("GET", "\(base)/api/jobs?limit=2&before=\(newest[1])", token: token)
            #expect(try JSONDecoder().decode([JobStatusID].self, from: Data(next.body.utf8)).map(\.id) == [job])

            // CORS: an allowed origin's preflight and answers; no other origin is told anything.
            let preflight = try run(
                "/usr/bin/curl",
                [
                    "-s", "-D", "-", "-X", "OPTIONS", "-H", "Origin: https://app.example",
                    "-H", "Access-Control-Request-Method: POST", "\(base)/api/jobs",
                ])
            #expect(preflight.stdout.contains("204 No Content"), "\(preflight.stdout)")
            #expect(preflight.stdout.contains("Access-Control-Allow-Origin: https://app.example"))
            #expect(preflight.stdout.contains("Idempotency-Key"))
            let answered = try run(
                "/usr/bin/curl",
                [
                    "-s", "-D", "-", "-H", "Origin: https://app.example", "-H",
                    "Authorization: Bearer \(token)", "\(base)/api/jobs?limit=1",
                ])
            #expect(answered.stdout.contains("Access-Control-Allow-Origin: https://app.example"))
            #expect(answered.stdout.contains("Access-Control-Expose-Headers: Content-Range"))
            let stranger = try run(
                "/usr/bin/curl",
                [
                    "-s", "-D", "-", "-X", "OPTIONS", "-H", "Origin: https://evil.example",
                    "-H", "Access-Control-Request-Method: POST", "\(base)/api/jobs",
                ])
            #expect(!stranger.stdout.contains("Access-Control-Allow-Origin"), "\(stranger.stdout)")

            // A template removed: gone from the list; its jobs keep their merged project.
            #expect(try HTTPAPITests.call("DELETE", "\(base)/api/templates/1", token: token).status == 403)
            let operate = try farm.cli(["tokens", "create", "ops", "--role", "operate"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try HTTPAPITests.call("DELETE", "\(base)/api/templates/1", token: operate).status == 204)
            #expect(try HTTPAPITests.call("GET", "\(base)/api/templates", token: token).body == "[]")
            #expect(try farm.store.projectOf(job: job)?.text.contains("\"text\": \"Oslo\"") == true)
        }
    }

    struct JobStatusID: Decodable { var id: Int64 }
}

/// The command line over HTTP alone: `farm upload`, `farm submit --api` (which sends the
/// project's media first) and `farm fetch`, from a folder the coordinator cannot see.
@Suite struct CommandLineOverHTTPTests {
    @Test func uploadSubmitAndFetchNeedNoPathOnTheCoordinator() throws {
        try withTemporaryDirectory { dir in
            let (farm, base, token, media, out) = try PythonClientTests.startFarm(in: dir)
            defer { farm.stopAll() }
            let mine = dir.appendingPathComponent("laptop")
            try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
            let clip = try TestMedia.make(
                "clip.mp4", in: mine, video: "testsrc2=size=160x90:rate=25:duration=2",
                audio: "sine=frequency=440:duration=2", extra: ["-shortest"])
            try Data("1\n00:00:00,100 --> 00:00:00,900\nOver HTTP\n".utf8).write(
                to: mine.appendingPathComponent("a.srt"))
            try Data(
                """
                {"output": {"width": 160, "height": 90, "fps": "25"}, "export": {"video": {"preset": "ultrafast"}},
                 "assets": {"clip": {"path": "clip.mp4"}, "subs": {"path": "a.srt"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1"}]},
                            {"kind": "video", "items": [{"asset": "subs", "at": "0", "duration": "1"}]}]}
                """.utf8
            ).write(to: mine.appendingPathComponent("p.json"))
            let api = ["--api", base, "--token", token]
            let digest = try SHA256.file(clip.path)
            let uploaded = try runFarm(["upload", "clip.mp4"] + api, in: mine)
            #expect(uploaded.status == 0, "\(uploaded.stderr)")
            #expect(
                uploaded.stdout.hasPrefix("clip.mp4: uploads/sha256/\(digest) or uploads/clip.mp4 ("),
                "\(uploaded.stdout)")
            #expect(FileManager.default.fileExists(atPath: media.appendingPathComponent("uploads/clip.mp4").path))
            let again = try runFarm(["upload", "clip.mp4"] + api, in: mine)
            #expect(again.stdout.contains("the farm had it"), "\(again.stdout)")

            let output = out.appendingPathComponent("remote.mp4").path
            let submitted = try runFarm(["submit", "p.json", "-o", output] + api, in: mine)
            #expect(submitted.status == 0, "\(submitted.stderr)")
            #expect(
                submitted.stderr.contains("assets.clip: uploads/sha256/\(digest) (the farm had it)"),
                "\(submitted.stderr)")
            #expect(submitted.stderr.contains("assets.subs: uploads/sha256/"), "\(submitted.stderr)")
            let job = try #require(Int64(submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(try farm.finish(job).state == .done)

            let fetched = try runFarm(["fetch", String(job), "-o", "got.mp4"] + api, in: mine)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(
                try Data(contentsOf: mine.appendingPathComponent("got.mp4"))
                    == Data(contentsOf: URL(fileURLWithPath: output)))
            #expect(!FileManager.default.fileExists(atPath: mine.appendingPathComponent("got.mp4.part").path))
            let local = try runFarm(["render", "p.json", "-o", "local.mp4", "--local"], in: mine)
            #expect(local.status == 0, "\(local.stderr)")
            #expect(
                try frameHashes(mine.appendingPathComponent("got.mp4"))
                    == frameHashes(mine.appendingPathComponent("local.mp4")))
            #expect(
                try audioHash(mine.appendingPathComponent("got.mp4"))
                    == audioHash(mine.appendingPathComponent("local.mp4")))

            // A .part that is not this output's beginning (longer than it) is not taken for it.
            try Data(repeating: 7, count: 5_000_000).write(to: mine.appendingPathComponent("again.mp4.part"))
            let stale = try runFarm(["fetch", String(job), "-o", "again.mp4"] + api, in: mine)
            #expect(stale.status == 1 && stale.stderr.contains("was not this output's beginning"), "\(stale.stderr)")
            #expect(try runFarm(["fetch", String(job), "-o", "again.mp4"] + api, in: mine).status == 0)
            #expect(
                try Data(contentsOf: mine.appendingPathComponent("again.mp4"))
                    == Data(contentsOf: URL(fileURLWithPath: output)))
            let unknown = try runFarm(["fetch", "999", "-o", "none.mp4"] + api, in: mine)
            #expect(unknown.status == 3, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("no job 999"), "\(unknown.stderr)")
            let noToken = try runFarm(["fetch", String(job), "-o", "x.mp4", "--api", base], in: mine)
            #expect(noToken.status == 64, "\(noToken.stderr)")
        }
    }
}
