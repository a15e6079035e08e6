import FarmCore
import FarmRender
import FarmStore
import Foundation
import Hummingbird

/// The farm's HTTP API (docs/openapi.yaml): every read and control action of the command line,
/// with the same effect in the database. Paths are under /api; only /healthz answers without a
/// token.
enum APIRoutes {
    /// Every route, each error answered in the API's JSON shape (`JSONErrors`), as is a request
    /// no route takes (`UnknownRoute`).
    static func router(
        store: StorePool, submissions: SubmitRoute, events: FarmEvents, dataDirectory: URL?,
        settings: HTTPSettings = HTTPSettings()
    ) -> Router<BasicRequestContext> {
        let router = Router()
        if !settings.corsOrigins.isEmpty { router.add(middleware: CrossOrigin(origins: settings.corsOrigins)) }
        router.add(middleware: JSONErrors())
        add(to: router, store: store, submissions: submissions, events: events, dataDirectory: dataDirectory)
        let api = router.group("api").add(middleware: TokenGate(store: store))
        TemplateRoutes.add(to: api, store: store, submissions: submissions)
        OutputRoutes.add(to: api, store: store)
        StillRoutes.add(to: api, store: store)
        PreviewRoutes.add(to: api, store: store, dataDirectory: dataDirectory)
        MediaRoutes(
            uploads: submissions.mediaRoot.map { MediaUploads(root: $0, limit: settings.uploadLimit) }
        ).add(to: api)
        router.add(middleware: UnknownRoute(routes: router.routes.map { .init(method: $0.method, path: $0.path) }))
        return router
    }

    private static func add(
        to router: Router<BasicRequestContext>, store: StorePool, submissions: SubmitRoute, events: FarmEvents,
        dataDirectory: URL?
    ) {
        router.get("healthz") { _, _ in "ok\n" }
        DashboardRoutes.addPages(to: router)
        DashboardSession.add(to: router, store: store)
        // Prometheus scrapes with a read token (its `authorization` setting).
        router.group("metrics").add(middleware: TokenGate(store: store)).get { _, _ in
            let text = try await store.run { MetricsText.render(try $0.metrics()) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        let api = router.group("api").add(middleware: TokenGate(store: store))
        addReads(to: api, store: store)
        addControls(to: api, store: store)
        DashboardRoutes.addAPI(to: api, store: store, events: events, dataDirectory: dataDirectory)
        api.post("jobs") { request, _ in
            do { return try await submissions.submit(request, store: store) } catch { throw APIError.from(error) }
        }
    }

    private static func addReads(to api: RouterGroup<BasicRequestContext>, store: StorePool) {
        api.get("jobs") { request, _ in
            let limit = try request.integerQuery("limit", in: 1...1000) ?? 50
            // A cursor, not an offset: a page stays the same while new jobs are queued.
            let before = try request.integerQuery("before", in: 1...Int(Int64.max)).map(Int64.init)
            let jobs = try await answerValue(store) { try $0.jobStatuses(limit: limit, before: before) }
            return try NextPage.response(jobs, path: "/api/jobs", limit: limit) { $0.id }
        }
        api.get("jobs/:id") { request, context in
            let id = try jobID(context)
            let all = try request.flagQuery("all")
            return try await answer(store) { try $0.jobDetail(id, everyChunk: all) }
        }
        api.get("jobs/:id/attempts") { request, context in
            let id = try jobID(context)
            let chunk = try request.integerQuery("chunk", in: 0...Int(Int32.max))
            let kindText = request.uri.queryParameters.get("kind") ?? "video"
            guard let kind = ChunkKind(rawValue: kindText) else {
                throw APIError(.badRequest, "video, audio or loudness", path: "kind")
            }
            return try await answer(store) { try $0.attemptLog(job: id, chunk: chunk, kind: kind) }
        }
        api.get("jobs/:id/qc") { _, context in
            let id = try jobID(context)
            return try await answer(store) { store -> QCReport in
                guard try store.job(id) != nil else { throw FarmControlError.noSuchJob(id) }
                guard let report = try store.qc(job: id) else {
                    throw APIError(
                        .notFound, "job \(id) has no QC report yet: it is made when the output is joined", path: "id")
                }
                return report
            }
        }
        api.get("jobs/:id/trace") { _, context in
            let id = try jobID(context)
            return try await answer(store) { store -> JobTrace.Report in
                guard let trace = try store.trace(job: id) else { throw FarmControlError.noSuchJob(id) }
                return JobTrace.Report(trace)
            }
        }
        api.get("workers") { _, _ in try await answer(store) { try $0.workerStatuses() } }
        api.get("workers/:id/attempts") { request, context in
            let worker = try workerID(context)
            let limit = try request.integerQuery("limit", in: 1...1000) ?? 20
            return try await answer(store) { try $0.workerAttempts(worker: worker, limit: limit) }
        }
        api.get("farm") { _, _ in
            try await answer(store) { store in
                let liveness = try store.coordinatorLiveness()
                let usage = try store.segmentUsage()
                return FarmSummary(
                    coordinatorServing: liveness.isServing,
                    coordinatorLastSeen: FarmStore.timestamp(liveness.lastSeen), warning: liveness.warning,
                    segmentBytes: usage.bytes, jobsWithSegments: usage.jobs)
            }
        }
    }

    private static func addControls(to api: RouterGroup<BasicRequestContext>, store: StorePool) {
        api.post("jobs/:id/cancel") { _, context in
            let id = try jobID(context)
            return try await answer(store) { try status(of: $0.cancel(job: id).id, in: $0) }
        }
        api.post("jobs/:id/pause") { _, context in
            let id = try jobID(context)
            return try await answer(store) { try status(of: $0.setPaused(job: id, true).id, in: $0) }
        }
        api.post("jobs/:id/resume") { _, context in
            let id = try jobID(context)
            return try await answer(store) { try status(of: $0.setPaused(job: id, false).id, in: $0) }
        }
        api.put("jobs/:id/priority") { request, context in
            let id = try jobID(context)
            let body = try await JSONBody.decode(PriorityChange.self, from: request)
            guard Int(Int32.min)...Int(Int32.max) ~= body.priority else {
                throw APIError(.badRequest, "must lie in \(Int32.min)...\(Int32.max)", path: "priority")
            }
            return try await answer(store) { try status(of: $0.setPriority(job: id, body.priority).id, in: $0) }
        }
        api.post("jobs/:id/retry") { request, context in
            let id = try jobID(context)
            let body = try await JSONBody.decode(RetryRequest.self, from: request, ifEmpty: RetryRequest())
            if let chunk = body.chunk { try checkChunk(chunk) }
            return try await answer(store) { store in
                let source = try store.projectOf(job: id)
                let media =
                    source.map {
                        ProjectLoader.currentStamps(text: $0.text, file: $0.file, mediaRoot: $0.mediaRoot)
                    } ?? [:]
                if let chunk = body.chunk {
                    _ = try store.retry(job: id, chunk: chunk, media: media)
                } else {
                    _ = try store.retry(job: id, media: media)
                }
                return try status(of: id, in: store)
            }
        }
        api.post("workers/:id/drain") { _, context in
            let worker = try workerID(context)
            return try await answer(store) { store in
                try store.setDraining(worker: worker, true)
                return try store.workerStatuses().filter { $0.id == worker }
            }
        }
        api.post("workers/:id/undrain") { _, context in
            let worker = try workerID(context)
            return try await answer(store) { store in
                try store.setDraining(worker: worker, false)
                return try store.workerStatuses().filter { $0.id == worker }
            }
        }
        api.post("prune") { request, _ in
            let body = try await JSONBody.decode(PruneRequest.self, from: request)
            if let age = body.olderThanSeconds, age < 0 {
                throw APIError(.badRequest, "must be >= 0", path: "olderThanSeconds")
            }
            return try await answer(store) { store in
                let age = body.job == nil ? (body.olderThanSeconds ?? 7 * 86400) : body.olderThanSeconds
                return try store.requestPrune(job: body.job, olderThan: age).map {
                    PruneRequested(job: $0.job, segmentBytes: $0.bytes)
                }
            }
        }
    }

    // MARK: Helpers

    static func jobID(_ context: BasicRequestContext) throws -> Int64 {
        guard let id = context.parameters.get("id", as: Int64.self), id > 0 else {
            throw APIError(.badRequest, "a job id is a positive integer", path: "id")
        }
        return id
    }

    /// A worker id from the path, percent-decoded: a keyed worker's is `NAME@HOST`, which
    /// clients (the dashboard's `encodeURIComponent`) send as `NAME%40HOST`, and the router
    /// hands parameters over as they were sent.
    static func workerID(_ context: BasicRequestContext) throws -> String {
        let raw = try context.parameters.require("id")
        guard let id = raw.removingPercentEncoding else {
            throw APIError(.badRequest, "a worker id percent-encoded wrongly: \(raw)", path: "id")
        }
        return id
    }

    /// A chunk index as the database holds it: 0 to 2147483647.
    private static func checkChunk(_ chunk: Int) throws {
        guard 0...Int(Int32.max) ~= chunk else {
            throw APIError(.badRequest, "a chunk index lies in 0...\(Int32.max)", path: "chunk")
        }
    }

    private static func status(of id: Int64, in store: FarmStore) throws -> JobStatus {
        guard let status = try store.jobStatuses(id: id).first else { throw FarmControlError.noSuchJob(id) }
        return status
    }

    /// Runs `body` against the database and returns its value; its errors as the API's.
    static func answerValue<T: Sendable>(
        _ store: StorePool, _ body: @escaping @Sendable (FarmStore) throws -> T
    ) async throws -> T {
        do {
            return try await store.run(body)
        } catch {
            throw APIError.from(error)
        }
    }

    /// Runs `body` against the database and answers with its JSON, or with the error's status.
    static func answer<T: Encodable & Sendable>(
        _ store: StorePool, _ body: @escaping @Sendable (FarmStore) throws -> T
    ) async throws -> Response {
        do {
            return try JSONBody.response(try await store.run(body))
        } catch {
            throw APIError.from(error)
        }
    }
}

/// What `farm serve` sets for the HTTP API beyond its address.
public struct HTTPSettings: Sendable {
    /// Origins whose web apps may call the API (`--cors-origin`); `*` for any.
    public var corsOrigins: [String] = []
    /// The largest media file taken by `PUT /api/media` (`farm serve --media-limit`, default 50 GB).
    public var uploadLimit: Int64 = 50_000_000_000

    public init(corsOrigins: [String] = [], uploadLimit: Int64 = 50_000_000_000) {
        self.corsOrigins = corsOrigins
        self.uploadLimit = uploadLimit
    }
}

struct PriorityChange: Codable, Sendable { var priority: Int }
struct RetryRequest: Codable, Sendable { var chunk: Int? = nil }
struct PruneRequest: Codable, Sendable {
    var job: Int64?
    var olderThanSeconds: Double?
}
struct PruneRequested: Codable, Sendable {
    var job: Int64
    var segmentBytes: Int64?
}

/// `GET /api/farm`: the coordinator's liveness and the disk the segments hold.
struct FarmSummary: Codable, Sendable {
    var coordinatorServing: Bool
    var coordinatorLastSeen: String?
    var warning: String?
    var segmentBytes: Int64
    var jobsWithSegments: Int
}
