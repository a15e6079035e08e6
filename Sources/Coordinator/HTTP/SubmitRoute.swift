import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import Hummingbird

/// `POST /api/jobs`: `farm submit` over HTTP. The body is `{"project": {…}, "output": "/abs/out.mp4",
/// "name": "trailer", "priority": 0, "overwrite": false, "notify": "https://…", "requires": ["4k"]}`,
/// or `"timeline"` with an OpenTimelineIO document in place of `"project"` (imported as `farm import`
/// does). The project is checked against its media exactly as the command line checks it, with its assets found in and
/// confined to `farm serve --media-root` and its output to `--output-root`. Problems answer 400,
/// one per line of the CLI.
struct SubmitRoute: Sendable {
    /// Where submitted projects' assets are; nil: this farm takes no submissions over HTTP.
    let mediaRoot: URL?
    /// Where submissions are checked against their media, one at a time: probing and chunk keys
    /// take seconds for a large project, and hold no database connection meanwhile.
    private let checking = DispatchQueue(label: "farm.http.submissions")

    init(mediaRoot: URL?) {
        self.mediaRoot = mediaRoot
    }

    func submit(_ request: Request, store: StorePool) async throws -> Response {
        let bytes = try await JSONBody.bytes(of: request, upTo: 16 << 20)
        let fields = try Self.fields(try JSONBody.parse(bytes, of: request))
        return try await submit(fields, request: request, body: bytes, store: store)
    }

    /// Checks and queues `fields`; a request with an `Idempotency-Key` that was queued before
    /// is answered with that job (200, `Idempotent-Replayed: true`) and queues nothing.
    func submit(_ fields: Fields, request: Request, body: [UInt8], store: StorePool) async throws -> Response {
        guard let mediaRoot else {
            throw APIError(
                .conflict, "this farm takes no submissions over HTTP: start farm serve with --media-root DIR")
        }
        let idempotency = try IdempotencyKey(request: request, body: body)
        if let idempotency, let earlier = try await idempotency.earlierJob(store: store) { return earlier }
        // A connection for the output root's read and for the insert, none between: a token check
        // or a read never waits for this project's media to be probed.
        let outputRoot = try await store.run { try $0.outputRoot() }
        let submission = try await checking.run {
            var submission = try SubmissionCheck.submission(fields, mediaRoot: mediaRoot, outputRoot: outputRoot)
            submission.idempotency = idempotency.map { ($0.key, $0.digest) }
            return submission
        }
        do {
            let job = try await store.run { store -> JobStatus in
                var submission = submission
                // An edit inside a long chunk renders only the GOPs it changed.
                if submission.useCache { _ = try store.reuseCachedGrains(&submission) }
                let id = try store.submit(submission)
                guard let status = try store.jobStatuses(id: id).first else { throw FarmControlError.noSuchJob(id) }
                return status
            }
            return try JSONBody.response(job, status: .created)
        } catch let error as PostgresError where idempotency != nil && error.isUniqueViolation {
            // The same request, sent twice at once: the other one queued it.
            if let idempotency, let earlier = try await idempotency.earlierJob(store: store) { return earlier }
            throw APIError.from(error)
        }
    }

    struct Fields: Sendable {
        /// The farm project's JSON, or the OpenTimelineIO document's when `isTimeline`.
        var project: String
        var isTimeline = false
        var output: String
        /// The job's name; nil: named as `farm submit` names it, after the project file.
        var name: String?
        var priority: Int
        var overwrite: Bool
        var notify: String?
        var noCache = false
        /// Tags a worker must have (`farm submit --requires`), checked (`PoolTags`).
        var requires: [String] = []
        /// Values for a template's fields, as the body gave them.
        var merge: [String: JSONValue] = [:]
        /// Where the project's problems are: `project` in the body, or `template` kept.
        var projectLabel = "project"
        /// Jobs it waits on (`farm submit --after`).
        var after: [Int64] = []
    }

    /// The body's members; the project kept as the JSON it was written as (exact numbers).
    static func fields(_ body: JSONValue) throws -> Fields {
        guard case .object(let members) = body else { throw APIError.expected("an object", got: body, path: "") }
        var merge: [String: JSONValue] = [:]
        if let value = members.first(where: { $0.key == "merge" })?.value {
            guard case .object(let values) = value else {
                throw APIError.expected("an object of template field values", got: value, path: "merge")
            }
            for (name, value) in values { merge[name] = value }
        }
        func member(_ key: String) -> JSONValue? { members.first { $0.key == key }?.value }
        let timeline = member("timeline")
        guard let project = member("project") ?? timeline else {
            throw APIError(.badRequest, "is required (or timeline, an OpenTimelineIO document)", path: "project")
        }
        if timeline != nil && member("project") != nil {
            throw APIError(.badRequest, "give project or timeline, not both", path: "timeline")
        }
        guard case .object = project else {
            throw APIError.expected("an object", got: project, path: timeline == nil ? "project" : "timeline")
        }
        /// A string member, nil when absent.
        func string(_ key: String) throws -> String? {
            guard let value = member(key) else { return nil }
            guard case .string(let text) = value else { throw APIError.expected("a string", got: value, path: key) }
            return text
        }
        guard let output = try string("output") else {
            throw APIError(.badRequest, "is required: the output file's absolute path", path: "output")
        }
        guard output.hasPrefix("/") else { throw APIError(.badRequest, "must be an absolute path", path: "output") }
        let name = try string("name")
        if let name, let problem = JobSubmission.nameProblem(name) {
            throw APIError(.badRequest, problem, path: "name")
        }
        var priority = 0
        if let value = member("priority") {
            guard case .number(let text) = value, let number = Int(text), abs(number) <= 1_000_000 else {
                throw APIError.expected("an integer from -1000000 to 1000000", got: value, path: "priority")
            }
            priority = number
        }
        /// A true-or-false member, false when absent.
        func flag(_ key: String) throws -> Bool {
            guard let value = member(key) else { return false }
            guard case .bool(let flag) = value else { throw APIError.expected("true or false", got: value, path: key) }
            return flag
        }
        let overwrite = try flag("overwrite")
        let noCache = try flag("noCache")
        let notify = try string("notify")
        if let notify, let problem = JobSubmission.notifyProblem(notify) {
            throw APIError(.badRequest, problem, path: "notify")
        }
        var requires: [String] = []
        if let value = member("requires") {
            guard case .array(let elements) = value else {
                throw APIError.expected("an array of tags", got: value, path: "requires")
            }
            var tags: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let tag) = element else {
                    throw APIError.expected("a tag (a string)", got: element, path: "requires[\(index)]")
                }
                if let problem = PoolTags.problem(in: tag.lowercased()) {
                    throw APIError(.badRequest, problem, path: "requires[\(index)]")
                }
                tags.append(tag)
            }
            do { requires = try PoolTags.check(tags) } catch {
                throw APIError(.badRequest, "\(error)", path: "requires")
            }
        }
        var after: [Int64] = []
        if let value = member("after") {
            guard case .array(let elements) = value else {
                throw APIError.expected("an array of job ids", got: value, path: "after")
            }
            for (index, element) in elements.enumerated() {
                guard case .number(let text) = element, let id = Int64(text), id > 0 else {
                    throw APIError.expected("a job id (a positive integer)", got: element, path: "after[\(index)]")
                }
                after.append(id)
            }
        }
        let known: Set = [
            "project", "timeline", "output", "name", "priority", "overwrite", "notify", "noCache", "requires", "merge",
            "after",
        ]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw APIError(
                .badRequest, "unknown key (allowed: \(known.sorted().joined(separator: ", ")))", path: unknown.key)
        }
        return Fields(
            project: JSONWriter.pretty(project), isTimeline: timeline != nil, output: output, name: name,
            priority: priority, overwrite: overwrite, notify: notify, noCache: noCache, requires: requires,
            merge: merge, after: after)
    }
}
