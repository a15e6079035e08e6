import FarmCore
import FarmRender
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The segment cache's files: `DATA/cache/KEY` for each accepted segment or audio block kept
/// under its key (`ChunkKeys`), `KEY.jpg` for a video chunk's thumbnail and `KEY.black.json`
/// for its black frames, counted from its first (a reused chunk's QC needs no decode). A file is a hard
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
    func blackFrames(_ key: String) -> URL { folder.appendingPathComponent(key + ".black.json") }

    /// Keeps an accepted result (and its thumbnail and black frames, if any) under `key`.
    /// `blackFrames` count from the chunk's first frame: a key names content, not a place.
    func keep(_ result: URL, thumbnail: URL?, blackFrames: [FrameRun]? = nil, key: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.link(result, to: file(key))
        if let thumbnail, FileManager.default.fileExists(atPath: thumbnail.path) {
            try? Self.link(thumbnail, to: self.thumbnail(key))
        }
        if let blackFrames, let data = try? JSONEncoder().encode(blackFrames) {
            try? data.write(to: self.blackFrames(key), options: .atomic)
        }
    }

    /// The black frames kept under `key`, counted from its chunk's first frame; nil when none
    /// were (an entry kept before they were, or a file lost: the QC then decodes the segment).
    func keptBlackFrames(_ key: String) -> [FrameRun]? {
        guard let data = try? Data(contentsOf: blackFrames(key)) else { return nil }
        return try? JSONDecoder().decode([FrameRun].self, from: data)
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

    /// Puts a GOP's entry (`CachedSegment.within`) in a job's folder: its frames cut from the
    /// cached segment that holds them once that segment's bytes check against `sha256`
    /// (`checked` keeps the segments checked already, as the GOPs of one edit share a few).
    /// False when the segment is missing, damaged or cannot be cut (the GOP is then rendered).
    func take(
        part entry: CachedSegment, to result: URL, fps: Rational, checked: inout Set<String>
    ) -> Bool {
        guard let within = entry.within else { return false }
        let source = file(within.key)
        if !checked.contains(within.key) {
            guard (try? SHA256.file(source.path)) == entry.sha256 else {
                remove([within.key])
                return false
            }
            checked.insert(within.key)
        }
        do {
            try SegmentCut.write(from: source, frames: within.frames, fps: fps, to: result)
            return true
        } catch {
            return false
        }
    }

    /// A GOP's black frames, counted from its first frame, from those of the segment holding it.
    func keptBlackFrames(part within: CachedSegment.Within) -> [FrameRun]? {
        keptBlackFrames(within.key).map { FrameRun.runs(of: FrameRun.flags($0, over: within.frames), from: 0) }
    }

    func remove(_ keys: [String]) {
        for key in keys {
            try? FileManager.default.removeItem(at: file(key))
            try? FileManager.default.removeItem(at: thumbnail(key))
            try? FileManager.default.removeItem(at: blackFrames(key))
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
