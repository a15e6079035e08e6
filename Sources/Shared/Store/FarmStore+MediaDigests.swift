import FarmCore
import Foundation

/// Digests of media files by path and stat stamp, so a re-submitted project's unchanged files
/// are not hashed again (`MediaPinning`).
extension FarmStore {
    public func mediaDigest(path: String, stamp: FileStamp) throws -> String? {
        try connection.query(
            "SELECT sha256 FROM media_digests WHERE path = $1 AND size = $2 AND modified = $3 AND inode = $4",
            [path, String(stamp.size), String(stamp.modified), String(stamp.inode)]
        ).first?.string(0)
    }

    public func rememberMediaDigest(path: String, stamp: FileStamp, sha256: String) throws {
        try connection.query(
            """
            INSERT INTO media_digests (path, size, modified, inode, sha256) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (path) DO UPDATE
                SET size = excluded.size, modified = excluded.modified, inode = excluded.inode, sha256 = excluded.sha256
            """, [path, String(stamp.size), String(stamp.modified), String(stamp.inode), sha256])
    }
}

/// `jobs.media_pins`: the pins as a JSON object keyed by asset id.
enum MediaPinsColumn {
    static func encode(_ pins: [String: MediaPin]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(pins), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> [String: MediaPin] {
        try JSONDecoder().decode([String: MediaPin].self, from: Data(text.utf8))
    }
}
