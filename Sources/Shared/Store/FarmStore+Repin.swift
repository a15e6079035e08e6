import FarmCore
import Foundation

/// A retried job renders from its files as they are now, under one condition: wherever a new
/// render reads a block that an accepted chunk read, the bytes are the same.
extension FarmStore {
    /// The job's project text, file and media root, to find its assets' files.
    public func projectOf(job id: Int64) throws -> (text: String, file: String, mediaRoot: String)? {
        try connection.query("SELECT project_text, project_file, media_root FROM jobs WHERE id = $1", [String(id)])
            .first.map { row in
                (try row.decode("project_text"), try row.decode("project_file"), try row.decode("media_root"))
            }
    }

    /// Pins each asset of job `id` whose file changed to `stamps[asset]`, its stamp now, and
    /// gives the new version the old one's block record: a file put back as it was renders on,
    /// and one that differs where accepted chunks read fails the job again. The assets
    /// re-pinned, in order. Runs inside the caller's transaction, the job row locked.
    func repin(job id: Int64, to stamps: [String: FileStamp]) throws -> [String] {
        guard !stamps.isEmpty,
            let text = try connection.query("SELECT media_pins FROM jobs WHERE id = $1", [String(id)]).first?.decode(
                "media_pins", as: String.self)
        else { return [] }
        var pins = try JSONColumn.decode(text) as [String: MediaPin]
        var repinned: [String] = []
        for (asset, pin) in pins.sorted(by: { $0.key < $1.key }) {
            guard let now = stamps[asset], !pin.admits(now) else { continue }
            if let old = pin.stamp?.version {
                try connection.query(
                    """
                    INSERT INTO media_blocks (version, block, sha256)
                    SELECT $2, block, sha256 FROM media_blocks WHERE version = $1 ON CONFLICT DO NOTHING
                    """, [old, now.version])
            }
            pins[asset] = MediaPin(now)
            repinned.append(asset)
        }
        if !repinned.isEmpty {
            try connection.query(
                "UPDATE jobs SET media_pins = $2 WHERE id = $1", [String(id), try JSONColumn.encode(pins)])
        }
        return repinned
    }
}
