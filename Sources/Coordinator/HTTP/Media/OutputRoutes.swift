import FarmCore
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /api/jobs/{id}/output`: a done job's file, whole or by byte ranges (`Range: bytes=A-B`,
/// 206), so a client can resume a cut download; and `POST /api/jobs/{id}/output/link`: a link
/// to it that works without a token until it expires, for a browser or another service.
enum OutputRoutes {
    static func add(to api: RouterGroup<BasicRequestContext>, store: StorePool) {
        api.get("jobs/:id/output") { request, context in
            let id = try APIRoutes.jobID(context)
            for (name, _) in request.uri.queryParameters where name != "expires" && name != "signature" {
                throw APIError(.badRequest, "unknown parameter (allowed: expires, signature)", path: String(name))
            }
            let (path, container) = try await APIRoutes.answerValue(store) { store -> (String, String) in
                guard let job = try store.job(id) else { throw FarmControlError.noSuchJob(id) }
                guard job.state == .done else {
                    throw APIError(
                        .conflict, "job \(id) is \(job.state.rawValue): its output is there once it is done")
                }
                return (job.outputPath, job.container.rawValue)
            }
            return try await file(path, container: container, request: request, context: context)
        }
        api.post("jobs/:id/output/link") { request, context in
            let id = try APIRoutes.jobID(context)
            let bytes = try await JSONBody.bytes(of: request, upTo: 1 << 20)
            let seconds = try bytes.isEmpty ? 3600 : expiry(try JSONBody.parse(bytes, of: request))
            guard 1...(7 * 86400) ~= seconds else {
                throw APIError(.badRequest, "must lie in 1...604800 (seven days)", path: "expiresInSeconds")
            }
            let secret = try await APIRoutes.answerValue(store) { store -> String in
                guard try store.job(id) != nil else { throw FarmControlError.noSuchJob(id) }
                return try store.linkSecret()
            }
            let expires = Int64(Date().timeIntervalSince1970) + Int64(seconds)
            let link = OutputLink(job: id, expires: expires)
            return try JSONBody.response(
                OutputLinkAnswer(
                    url: "/api/jobs/\(id)/output?expires=\(expires)&signature=\(link.signature(secret: secret))",
                    expiresAt: FarmStore.timestamp(Double(expires)) ?? ""), status: .created)
        }
    }

    static func file(_ path: String, container: String, request: Request, context: BasicRequestContext)
        async throws -> Response
    {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else {
            throw APIError(.gone, "the output \(path) is no longer on the coordinator's disk")
        }
        var headers: HTTPFields = [
            .contentType: contentType(container), .acceptRanges: "bytes",
            .contentDisposition: "attachment; filename=\"\(URL(fileURLWithPath: path).lastPathComponent)\"",
        ]
        let range: ClosedRange<Int64>
        var status = HTTPResponse.Status.ok
        if let header = request.headers[.range], !ByteRange.isBackwards(header) {
            guard ByteRange.isWellFormed(header) else {
                throw APIError(
                    .badRequest, "Range must be bytes=A-B, bytes=A- or bytes=-N (got \(header))", path: "Range")
            }
            guard let asked = ByteRange(header: header, size: size) else {
                var error = APIError(.rangeNotSatisfiable, "the file has \(size) bytes; Range \(header) lies outside")
                error.extraHeaders[.contentRange] = "bytes */\(size)"
                throw error
            }
            range = asked.range
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        } else {
            range = 0...max(0, size - 1)
        }
        headers[.contentLength] = String(size == 0 ? 0 : range.count)
        guard size > 0 else { return Response(status: status, headers: headers) }
        let body = try await FileIO().loadFile(
            path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
        return Response(status: status, headers: headers, body: body)
    }

    /// `{"expiresInSeconds": N}`'s N (3600 when absent).
    static func expiry(_ body: JSONValue) throws -> Int {
        guard case .object(let members) = body else { throw APIError.expected("an object", got: body, path: "") }
        for member in members where member.key != "expiresInSeconds" {
            throw APIError(.badRequest, "unknown key (allowed: expiresInSeconds)", path: member.key)
        }
        guard let value = members.first?.value else { return 3600 }
        guard case .number(let text) = value, let seconds = Int(text) else {
            throw APIError.expected("an integer", got: value, path: "expiresInSeconds")
        }
        return seconds
    }

    static func contentType(_ container: String) -> String {
        switch container {
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        case "mkv": return "video/x-matroska"
        case "hls": return "application/vnd.apple.mpegurl"
        default: return "application/octet-stream"
        }
    }
}

/// A link to a job's output signed with the farm's link secret (never the webhooks' one, which
/// receivers hold), good until `expires` (seconds since 1970) and never for more than seven
/// days: the HMAC-SHA256 of `output JOB EXPIRES`, so it names one job's file for one time.
struct OutputLink: Equatable {
    var job: Int64
    var expires: Int64

    static let longest: Int64 = 7 * 86400

    func signature(secret: String) -> String {
        HMACSHA256.hex(key: secret, message: Array("output \(job) \(expires)".utf8))
    }

    /// Whether `signature` is this link's, compared in constant time.
    func isSigned(by signature: String, secret: String) -> Bool {
        let expected = Array(self.signature(secret: secret).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The link a request carries (`GET /api/jobs/N/output?expires=…&signature=…`), or nil.
    static func carried(by request: Request) -> (link: OutputLink, signature: String)? {
        guard request.method == .get || request.method == .head else { return nil }
        let parts = request.uri.path.split(separator: "/")
        guard parts.count == 4, parts[0] == "api", parts[1] == "jobs", parts[3] == "output", let job = Int64(parts[2]),
            let expiresText = request.uri.queryParameters.get("expires"), let expires = Int64(expiresText),
            let signature = request.uri.queryParameters.get("signature")
        else { return nil }
        return (OutputLink(job: job, expires: expires), signature)
    }
}

struct OutputLinkAnswer: Codable, Sendable {
    var url: String
    var expiresAt: String
}

/// One `Range: bytes=…` of RFC 9110: `A-B`, `A-` or `-N` (the last N bytes). Several ranges
/// are refused (400); `A-B` with B before A is no range, and the header is ignored (200).
struct ByteRange: Equatable {
    var range: ClosedRange<Int64>

    /// One range in RFC 9110's syntax, whatever the file's size.
    static func isWellFormed(_ header: String) -> Bool {
        header.wholeMatch(of: #/bytes=([0-9]+-[0-9]*|-[0-9]+)/#) != nil
    }

    /// `A-B` with B before A: RFC 9110 says to ignore such a header.
    static func isBackwards(_ header: String) -> Bool {
        guard let match = header.wholeMatch(of: #/bytes=([0-9]+)-([0-9]+)/#),
            let start = Int64(match.1), let end = Int64(match.2)
        else { return false }
        return end < start
    }

    init?(header: String, size: Int64) {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let count = Int64(last), count > 0 else { return nil }
            range = max(0, size - count)...(size - 1)
            return
        }
        guard let start = Int64(first), start < size else { return nil }
        if last.isEmpty {
            range = start...(size - 1)
            return
        }
        // An end past Int64 is past the file's: clamped, as a smaller one is.
        let end = Int64(last) ?? Int64.max
        guard end >= start else { return nil }
        range = start...min(end, size - 1)
    }
}
