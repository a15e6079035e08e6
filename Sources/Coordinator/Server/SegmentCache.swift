import FarmCore
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The segment cache's files: `DATA/cache/KEY` for each accepted segment or audio block kept
/// under its key (`ChunkKeys`), and `KEY.jpg` for a video chunk's thumbnail. A file is a hard
/// link to the job's accepted one, so keeping it costs no bytes until the job's folder is pruned.
/// The index of what it holds is the `segment_cache` table.
struct SegmentCache {
    let folder: URL

    init(dataDirectory: URL) {
        folder = dataDirectory.appendingPathComponent("cache")
    }

    /// This data folder's name in the cache's index, made once and kept in the folder: two
    /// coordinators of one database share cached segments only if they share the folder.
    func identity() throws -> String {
        let file = folder.deletingLastPathComponent().appendingPathComponent("cache-id")
        if let text = try? String(contentsOf: file, encoding: .utf8), !text.isEmpty {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let made = UUID().uuidString.lowercased()
        try Data(made.utf8).write(to: file, options: .atomic)
        return made
    }

    func file(_ key: String) -> URL { folder.appendingPathComponent(key) }
    func thumbnail(_ key: String) -> URL { folder.appendingPathComponent(key + ".jpg") }

    /// Keeps an accepted result (and its thumbnail, if any) under `key`.
    func keep(_ result: URL, thumbnail: URL?, key: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.link(result, to: file(key))
        if let thumbnail, FileManager.default.fileExists(atPath: thumbnail.path) {
            try? Self.link(thumbnail, to: self.thumbnail(key))
        }
    }

    /// Puts a cached result in a job's folder once its bytes check against `sha256`; false when
    /// the file is missing or damaged (then it is removed, and the chunk must be rendered).
    func take(_ entry: CachedSegment, to result: URL, thumbnail: URL?) -> Bool {
        let cached = file(entry.key)
        guard (try? SHA256.file(cached.path)) == entry.sha256 else {
            remove([entry.key])
            return false
        }
        do {
            try Self.link(cached, to: result)
        } catch {
            return false
        }
        if let thumbnail { try? Self.link(self.thumbnail(entry.key), to: thumbnail) }
        return true
    }

    func remove(_ keys: [String]) {
        for key in keys {
            try? FileManager.default.removeItem(at: file(key))
            try? FileManager.default.removeItem(at: thumbnail(key))
        }
    }

    func removeAll() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A hard link at `destination` (replacing what is there), or a copy where links cannot go.
    private static func link(_ source: URL, to destination: URL) throws {
        let temporary = destination.appendingPathExtension("linking")
        try? FileManager.default.removeItem(at: temporary)
        if Glibc.link(source.path, temporary.path) != 0 {
            try FileManager.default.copyItem(at: source, to: temporary)
        }
        do {
            try SystemCall.retrying("rename", path: destination.path) { rename(temporary.path, destination.path) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
