import FarmCore
import Foundation

/// Digests of the fixed blocks of media that renders read, by file version.
extension FarmStore {
    /// Records the blocks a render read and holds them against the digests earlier renders of
    /// the same versions recorded, in one statement: the first asset whose bytes differ, or nil.
    public func checkMediaBlocks(_ blocks: [MediaReads.Block]) throws -> MediaChangedError? {
        struct Row: Encodable {
            var version: String
            var block: Int64
            var sha256: String
        }
        guard !blocks.isEmpty else { return nil }
        var pathOfVersion: [String: (asset: String, path: String)] = [:]
        let rows = blocks.map { read in
            pathOfVersion[read.version] = (read.asset, read.path)
            return Row(version: read.version, block: read.block, sha256: read.sha256)
        }
        let differing = try connection.query(
            """
            WITH reported AS (
                SELECT * FROM json_to_recordset($1::json) AS r(version text, block bigint, sha256 text)
            ), recorded AS (
                INSERT INTO media_blocks (version, block, sha256) SELECT version, block, sha256 FROM reported
                ON CONFLICT DO NOTHING
            )
            SELECT r.version FROM reported r JOIN media_blocks m ON m.version = r.version AND m.block = r.block
            WHERE m.sha256 <> r.sha256 LIMIT 1
            """, [String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)])
        return differing.first.flatMap { pathOfVersion[$0.string(0)] }.map {
            MediaChangedError(asset: $0.asset, path: $0.path)
        }
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
