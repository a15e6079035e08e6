import FarmCore
import FarmDataFolder
import FarmRender
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// The dashboard: its page, script and style (no data in them, so they answer without a token;
/// the page asks for one), and the calls only it needs: a job's chunk map, its render rate over
/// time, chunk thumbnails and a stream of server-sent events.
enum DashboardRoutes {
    /// `index.html`, its scripts and `dashboard.css` beside this file, put into the binary at
    /// build time (`EmbeddedFiles`, made by the EmbedFiles plugin): the dashboard is wherever
    /// `farm` is, with no files to install and no CDN.
    static func addPages(to router: Router<BasicRequestContext>) {
        router.get("") { _, _ in page(EmbeddedFiles.indexHTML, type: "text/html; charset=utf-8") }
        router.get("dashboard.css") { _, _ in page(EmbeddedFiles.dashboardCSS, type: "text/css; charset=utf-8") }
        for (name, script) in scripts {
            router.get(RouterPath(name)) { _, _ in page(script, type: "text/javascript; charset=utf-8") }
        }
    }

    /// The page's scripts by path, in the order index.html loads them: shared helpers first.
    static let scripts: KeyValuePairs<String, String> = [
        "dashboard.js": EmbeddedFiles.dashboardJS, "jobs-view.js": EmbeddedFiles.jobsViewJS,
        "chunk-map.js": EmbeddedFiles.chunkMapJS, "rate-plot.js": EmbeddedFiles.ratePlotJS,
        "job-view.js": EmbeddedFiles.jobViewJS, "qc-view.js": EmbeddedFiles.qcViewJS,
        "trace-view.js": EmbeddedFiles.traceViewJS,
        "workers-view.js": EmbeddedFiles.workersViewJS, "player.js": EmbeddedFiles.playerJS,
    ]

    static func addAPI(
        to api: RouterGroup<BasicRequestContext>, store: StorePool, events: FarmEvents, dataDirectory: URL?
    ) {
        api.get("jobs/:id/chunks") { _, context in
            let id = try APIRoutes.jobID(context)
            return try await APIRoutes.answer(store) { store in
                guard let job = try store.job(id) else { throw FarmControlError.noSuchJob(id) }
                return ChunkMap(
                    try store.chunkStatuses(job: id, everyChunk: true, withErrors: false),
                    ended: job.state == .cancelled || job.state == .failed)
            }
        }
        api.get("jobs/:id/rate") { _, context in
            let id = try APIRoutes.jobID(context)
            return try await APIRoutes.answer(store) { try $0.renderRate(job: id) }
        }
        api.get("jobs/:id/chunks/:index/thumbnail") { _, context in
            let id = try APIRoutes.jobID(context)
            guard let index = context.parameters.get("index", as: Int.self), 0...Int(Int32.max) ~= index else {
                throw APIError(.badRequest, "a chunk index is an integer >= 0", path: "index")
            }
            guard let dataDirectory,
                let bytes = FileManager.default.contents(
                    atPath: JobFolder(dataDirectory: dataDirectory, job: id).thumbnail(chunk: index).path)
            else { throw APIError(.notFound, "no thumbnail of job \(id) chunk \(index)") }
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        api.get("events") { request, _ in
            let stream = events.subscribe()
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "retry: 2000\nevent: hello\ndata: {}\n\n"))
                    var checked = ContinuousClock.now
                    for await event in stream {
                        // A stream outlives the call that opened it: every five seconds (a tick
                        // comes at least that often) it asks again whether its token or session
                        // still holds, and ends once logged out or revoked.
                        if ContinuousClock.now - checked >= .seconds(5) {
                            guard (try? await TokenGate<BasicRequestContext>.role(of: request, store: store)) != nil
                            else { break }
                            checked = .now
                        }
                        try await writer.write(ByteBuffer(string: serverSentEvent(event)))
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// `event: jobs` with the ids of the jobs that changed, or `event: tick` every quiet 5 s.
    static func serverSentEvent(_ event: FarmEvents.Event) -> String {
        switch event {
        case .jobs(let ids): return "event: jobs\ndata: [\(ids.map(String.init).joined(separator: ","))]\n\n"
        case .tick: return "event: tick\ndata: {}\n\n"
        }
    }

    private static func page(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-cache",
                // Nothing but this server's own script, style, images and calls; the player's
                // video is its own MediaSource, which plays from a blob: URL.
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data:; media-src 'self' blob:; frame-ancestors 'none'",
                .xContentTypeOptions: "nosniff",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
