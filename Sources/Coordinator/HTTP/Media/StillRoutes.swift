import FarmCore
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /api/jobs/{id}/stills/{still}`: the pictures a done job's export asked for, written
/// beside its output (`export.poster`, `export.thumbnails`, `export.preview`): `poster`,
/// `thumbnails` (the sheet), `thumbnails.vtt` (its track) and `preview`, so an app that drives
/// the farm over HTTP alone shows them without reaching the coordinator's disk.
enum StillRoutes {
    /// Each still's files beside `NAME.EXT` (by format) and their media types.
    static let files: [String: [(suffix: String, type: String)]] = [
        "poster": [("poster.jpg", "image/jpeg"), ("poster.png", "image/png"), ("poster.webp", "image/webp")],
        "thumbnails": [
            ("thumbnails.jpg", "image/jpeg"), ("thumbnails.png", "image/png"), ("thumbnails.webp", "image/webp"),
        ],
        "thumbnails.vtt": [("thumbnails.vtt", "text/vtt; charset=utf-8")],
        "preview": [("preview.gif", "image/gif")],
    ]

    static func add(to api: RouterGroup<BasicRequestContext>, store: StorePool) {
        api.get("jobs/:id/stills/:still") { _, context in
            let id = try APIRoutes.jobID(context)
            let name = context.parameters.get("still") ?? ""
            guard let candidates = files[name] else {
                throw APIError(
                    .notFound, "no still \"\(name)\": one of poster, thumbnails, thumbnails.vtt, preview", path: "still"
                )
            }
            let output = try await APIRoutes.answerValue(store) { store -> String in
                guard let job = try store.job(id) else { throw FarmControlError.noSuchJob(id) }
                guard job.state == .done else {
                    throw APIError(
                        .conflict, "job \(id) is \(job.state.rawValue): its stills are there once it is done")
                }
                return job.outputPath
            }
            let stem = URL(fileURLWithPath: output).deletingPathExtension()
            for (suffix, type) in candidates {
                let file = stem.appendingPathExtension(suffix).path
                guard let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber else {
                    continue
                }
                let headers: HTTPFields = [.contentType: type, .contentLength: String(size.int64Value)]
                guard size.int64Value > 0 else { return Response(status: .ok, headers: headers) }
                return Response(
                    status: .ok, headers: headers, body: try await FileIO().loadFile(path: file, context: context))
            }
            throw APIError(.notFound, "job \(id) has no \(name) beside its output (its export asked for none)")
        }
    }
}
