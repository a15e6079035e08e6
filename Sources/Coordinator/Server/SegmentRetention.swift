import FarmCore
import FarmDataFolder
import FarmRender
import FarmStore
import Foundation
import Logging

/// Measures finished jobs' segment folders and removes those due (`farm prune`,
/// `--keep-segments`), a few jobs per pass. Walking or deleting a folder of 100,000 segments
/// takes seconds, so a pass runs in the background (`BackgroundPass`); the coordinator's loop
/// only starts one now and then (`poke`).
final class SegmentRetention: @unchecked Sendable {
    private let logger: Logger
    private let dataDirectory: URL
    /// Remove finished jobs' segments this many seconds after they end; nil keeps them.
    private let keepSeconds: Double?
    /// The most the segment cache keeps; the least recently used entries go first.
    private let cacheBytes: Int64
    private var background: BackgroundPass!

    init(database: String, logger: Logger, dataDirectory: URL, keepSeconds: Double?, cacheBytes: Int64) {
        self.logger = logger
        self.dataDirectory = dataDirectory
        self.keepSeconds = keepSeconds
        self.cacheBytes = cacheBytes
        background = BackgroundPass(name: "segment-retention", database: database, logger: logger) { [unowned self] in
            try pass($0)
        }
    }

    /// Starts a pass unless one runs.
    func poke() { background.poke() }

    /// Waits for a pass in progress (the coordinator is stopping).
    func finish() { background.finish() }

    private func pass(_ store: FarmStore) throws {
        for job in try store.jobsToPrune(keep: keepSeconds) {
            let folder = JobFolder(dataDirectory: dataDirectory, job: job)
            var freed: Int64 = 0
            // Inside the job's lock: a retry waits, then renders what is gone.
            if try store.prune(
                job,
                remove: {
                    freed = Self.size(of: folder.url)
                    folder.remove()
                })
            {
                logger.info("job \(job): removed its segments (\(freed) bytes)")
            }
        }
        let cache = SegmentCache(dataDirectory: dataDirectory)
        if try store.takeCacheClearRequest() {
            cache.removeAll()
            logger.info("segment cache emptied (farm prune --cache)")
        }
        let evicted = try store.evictCachedSegments(toFit: cacheBytes)
        if !evicted.isEmpty {
            cache.remove(evicted)
            logger.info(
                "segment cache: removed \(evicted.count) least recently used segment(s) to stay within its size")
        }
        for job in try store.jobsToMeasure() {
            try store.recordSegmentBytes(
                job, bytes: Self.size(of: JobFolder(dataDirectory: dataDirectory, job: job).url))
        }
    }

    /// Bytes of the regular files under `folder` (0 when it does not exist).
    static func size(of folder: URL) -> Int64 { FolderSize.bytes(of: folder) }
}
