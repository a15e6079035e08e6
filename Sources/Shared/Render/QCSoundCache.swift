import FarmCore
import Foundation

/// The QC pass's sound measures of outputs already measured, by the SHA-256 of their audio
/// packets (bytes and timestamps) and the stream's codec, rate, channels and length. An edit
/// that leaves the sound alone joins the same audio blocks into the same packets, and decoding
/// them again would give the same figures: a 2-minute programme's sound costs 0.5 s of the
/// re-render's serial tail on 2 cores, most of what a one-item edit waits for.
public struct QCSoundCache: Sendable {
    public let folder: URL
    /// Whether measures kept are used, or only kept (a render afresh measures afresh).
    public let reads: Bool
    /// The most measures kept; the oldest go first. Each is a few hundred bytes.
    static let limit = 256

    public init(folder: URL, reads: Bool) {
        self.folder = folder
        self.reads = reads
    }

    /// What `key` was measured as, nil when never (or unreadable: measured again).
    func measure(_ key: String) -> QCReport.Audio? {
        guard reads, let data = try? Data(contentsOf: file(key)) else { return nil }
        return try? JSONDecoder().decode(QCReport.Audio.self, from: data)
    }

    /// Keeps a measure; a failure to keep one is no error (it is measured again next time).
    func keep(_ audio: QCReport.Audio, key: String) {
        guard let data = try? JSONEncoder().encode(audio) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? data.write(to: file(key), options: .atomic)
        prune()
    }

    private func file(_ key: String) -> URL { folder.appendingPathComponent("sound-\(key).json") }

    private func prune() {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard
            let files = try? FileManager.default.contentsOfDirectory(
                at: folder, includingPropertiesForKeys: keys),
            files.count > Self.limit
        else { return }
        let dated = files.map {
            ($0, (try? $0.resourceValues(forKeys: Set(keys)))?.contentModificationDate ?? .distantPast)
        }
        for (file, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(files.count - Self.limit) {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
