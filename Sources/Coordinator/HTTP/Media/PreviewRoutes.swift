import FarmCore
import FarmDataFolder
import FarmMedia
import FarmRender
import FarmStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /api/jobs/{id}/preview.m3u8` and `GET /api/jobs/{id}/preview/{file}`: the live
/// preview of a render (`LivePreview`), its initialization segment (`init.mp4`) and a chunk's
/// media segment (`N.m4s`), for the dashboard's player or any HLS player; and
/// `GET /api/jobs/{id}/hls/master.m3u8` and `GET /api/jobs/{id}/hls/{rendition}/{file}`: a done
/// HLS job's package, its master playlist's URIs made relative to the route.
enum PreviewRoutes {
    static func add(to api: RouterGroup<BasicRequestContext>, store: StorePool, dataDirectory: URL?) {
        api.get("jobs/:id/preview.m3u8") { _, context in
            let preview = try await self.preview(context, store: store, dataDirectory: dataDirectory)
            if let first = preview.prefix.first {
                try checkPlayable(preview.folder.result(kind: .video, index: first.index))
            }
            return file(Data(preview.preview.text.utf8), type: playlistType, cache: "no-store")
        }
        api.get("jobs/:id/preview/:file") { _, context in
            let name = context.parameters.get("file") ?? ""
            let preview = try await self.preview(context, store: store, dataDirectory: dataDirectory)
            guard let first = preview.prefix.first else {
                throw APIError(.notFound, "no chunk of job \(preview.job) is accepted yet")
            }
            let firstSegment = preview.folder.result(kind: .video, index: first.index)
            try checkPlayable(firstSegment)
            let fps = preview.preview.fps
            if name == "init.mp4" {
                let initialization = try await DispatchQueue.global().run {
                    try FragmentedVideo.initialization(of: firstSegment, fps: fps)
                }
                return file(initialization, type: "video/mp4", cache: "private, max-age=86400")
            }
            guard name.hasSuffix(".m4s"), let index = Int(name.dropLast(4)),
                let chunk = preview.prefix.first(where: { $0.index == index })
            else {
                throw APIError(
                    .notFound, "no \(name) in job \(preview.job)'s preview: init.mp4, or N.m4s of a chunk it lists",
                    path: "file")
            }
            let segment = preview.folder.result(kind: .video, index: index)
            let parts = try await DispatchQueue.global().run {
                let delay = try FragmentedVideo.decodeDelay(of: firstSegment, fps: fps)
                return try FragmentedVideo.fragments(of: segment, start: chunk.start, fps: fps, delay: delay)
            }
            return file(parts.media, type: "video/iso.segment", cache: "private, max-age=86400")
        }
        api.get("jobs/:id/hls/master.m3u8") { _, context in
            let master = try await package(context, store: store)
            let text = try String(contentsOf: master, encoding: .utf8)
            // The package's URIs name its folder; the route's are relative to /hls/.
            let folder = HLSPackage.folder(of: master).lastPathComponent
            let prefix = (folder.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? folder) + "/"
            let relative = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix(prefix)
                    ? String(line.dropFirst(prefix.count))
                    : line.replacingOccurrences(
                        of: "URI=\"\(prefix)", with: "URI=\"")
            }
            return file(Data(relative.joined(separator: "\n").utf8), type: playlistType, cache: "no-store")
        }
        api.get("jobs/:id/hls/:rendition/:file") { _, context in
            let master = try await package(context, store: store)
            let rendition = context.parameters.get("rendition") ?? ""
            let name = context.parameters.get("file") ?? ""
            // Names the farm writes: a rendition's (a-z, 0-9, -) and its files'; never a path.
            let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.")
            guard !rendition.isEmpty, !name.isEmpty, !name.hasPrefix("."), rendition.allSatisfy(allowed.contains),
                name.allSatisfy(allowed.contains)
            else { throw APIError(.notFound, "no such file in the package", path: "file") }
            let path = HLSPackage.folder(of: master).appendingPathComponent(rendition).appendingPathComponent(name)
            guard let bytes = FileManager.default.contents(atPath: path.path) else {
                throw APIError(.notFound, "the package has no \(rendition)/\(name)", path: "file")
            }
            let type =
                name.hasSuffix(".m3u8") ? playlistType : name.hasSuffix(".m4s") ? "video/iso.segment" : "video/mp4"
            return file(bytes, type: type, cache: "private, max-age=86400")
        }
    }

    static let playlistType = "application/vnd.apple.mpegurl"

    private static func file(_ bytes: Data, type: String, cache: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .cacheControl: cache, .contentLength: String(bytes.count)],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A browser's Media Source Extensions play H.264, HEVC and AV1 in fragmented MP4; the
    /// lossless and intra-only masters (FFV1, ProRes) play in none.
    private static func checkPlayable(_ segment: URL) throws {
        let codec = try? DemuxedStream(path: segment.path, kind: .video).codecString
        guard codec != nil else {
            throw APIError(
                .conflict, "the job's video codec plays in no browser: the preview is for h264, hevc and av1 outputs")
        }
    }

    private static func preview(_ context: BasicRequestContext, store: StorePool, dataDirectory: URL?) async throws
        -> (job: Int64, preview: LivePreview, folder: JobFolder, prefix: [Chunk])
    {
        let id = try APIRoutes.jobID(context)
        guard let dataDirectory else {
            throw APIError(.notFound, "this server does not read the coordinator's data folder: no preview")
        }
        let folder = JobFolder(dataDirectory: dataDirectory, job: id)
        let preview = try await APIRoutes.answerValue(store) { store -> LivePreview in
            guard let job = try store.job(id) else { throw FarmControlError.noSuchJob(id) }
            return LivePreview(
                job: job, statuses: try store.chunkStatuses(job: id, everyChunk: true, withErrors: false),
                folder: folder)
        }
        return (id, preview, folder, preview.prefix)
    }

    /// A done HLS job's master playlist.
    private static func package(_ context: BasicRequestContext, store: StorePool) async throws -> URL {
        let id = try APIRoutes.jobID(context)
        let output = try await APIRoutes.answerValue(store) { store -> String in
            guard let job = try store.job(id) else { throw FarmControlError.noSuchJob(id) }
            guard job.container == .hls else {
                throw APIError(.notFound, "job \(id) writes \(job.container.rawValue), not an HLS package")
            }
            guard job.state == .done else {
                throw APIError(.conflict, "job \(id) is \(job.state.rawValue): its package is there once it is done")
            }
            return job.outputPath
        }
        return URL(fileURLWithPath: output)
    }
}
