import FarmCore
import Foundation

/// What probing found in each media file, kept in a folder (a farm's `DATA/probes`) for as long
/// as the file keeps its stamp: a submit or render of a project whose media was probed before
/// opens none of it again. A probe decodes the first frames of every asset (tens of
/// milliseconds each, in a child process); a library of camera originals costs that at every
/// submit without this.
///
/// A stamp (size, mtime and ctime in ns, inode, device) names one version of a file, so a
/// result found under it is the result a new probe would give; one taken before the probe
/// means a file changed while it was probed is simply missed next time.
public struct ProbeCache: Sendable {
    /// Bumped whenever `MediaProbe` starts finding out more, or otherwise: entries of another
    /// format are ignored.
    static let format = 3

    private struct Entry: Codable {
        var format: Int
        var farm: String
        var path: String
        var stamp: FileStamp
        var info: MediaInfo
    }

    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// `probe` with the results kept here; nothing is kept for a file whose stamp cannot be
    /// taken, or when the folder cannot be written (the probe's answer is returned anyway).
    public func probing(with probe: @escaping @Sendable (String) throws -> MediaInfo)
        -> @Sendable (String) throws -> MediaInfo
    {
        { path in
            guard let stamp = FileStamp(path: path) else { return try probe(path) }
            if let known = info(for: path, stamp: stamp) { return known }
            let info = try probe(path)
            store(Entry(format: Self.format, farm: FarmVersion.current, path: path, stamp: stamp, info: info))
            return info
        }
    }

    private func file(for path: String) -> URL {
        folder.appendingPathComponent(SHA256.hex(of: path) + ".json")
    }

    private func info(for path: String, stamp: FileStamp) -> MediaInfo? {
        guard let data = try? Data(contentsOf: file(for: path)),
            let entry = try? JSONDecoder().decode(Entry.self, from: data),
            entry.format == Self.format, entry.farm == FarmVersion.current, entry.path == path, entry.stamp == stamp
        else { return nil }
        return entry.info
    }

    private func store(_ entry: Entry) {
        guard let data = try? JSONEncoder().encode(entry) else { return }
        let destination = file(for: entry.path)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Another command may write the same entry at once: each writes whole, by rename.
        try? data.write(to: destination, options: .atomic)
    }
}
