import FarmCore
import Foundation

/// What the store says of the blocks a render read (`FarmStore.checkMediaBlocks`).
public struct MediaBlocksCheck: Sendable {
    /// The first asset whose bytes differ from the pinned version's, if one does.
    public var changed: MediaChangedError?
    /// Blocks read from a copy for which no digest of the pinned version is recorded yet:
    /// for `CopyCheck` to settle from a reader of the pinned version.
    public var unsettled: [MediaReads.Block]
}

/// Digests of the fixed blocks of media that renders read, by file version. A row is the
/// pinned version's own digest: read by a reader whose stamp matched the version (a worker, or
/// the coordinator for a copy's block), never a copy's.
extension FarmStore {
    /// Records the blocks a render read from pinned versions and holds every block, a copy's
    /// too, against the digests recorded for its version, in one statement. A copy's block
    /// with no recorded digest is returned as unsettled, never recorded.
    public func checkMediaBlocks(_ blocks: [MediaReads.Block]) throws -> MediaBlocksCheck {
        struct Row: Encodable {
            var n: Int
            var version: String
            var block: Int64
            var sha256: String
            var copy: Bool
        }
        guard !blocks.isEmpty else { return MediaBlocksCheck(changed: nil, unsettled: []) }
        let rows = blocks.enumerated().map { index, read in
            Row(n: index, version: read.version, block: read.block, sha256: read.sha256, copy: read.isCopy)
        }
        // The statement's snapshot does not see the rows its own INSERT adds: a pinned read
        // with no digest before it is the one recorded, and comes back with none.
        let found = try connection.query(
            """
            WITH reported AS (
                SELECT * FROM json_to_recordset($1::json)
                    AS r(n int, version text, block bigint, sha256 text, copy boolean)
            ), recorded AS (
                INSERT INTO media_blocks (version, block, sha256)
                SELECT version, block, sha256 FROM reported WHERE NOT copy
                ON CONFLICT DO NOTHING
            )
            SELECT r.n, m.sha256 IS NULL AS unsettled FROM reported r
                LEFT JOIN media_blocks m ON m.version = r.version AND m.block = r.block
            WHERE (m.sha256 IS NULL AND r.copy) OR m.sha256 <> r.sha256
            ORDER BY r.n
            """, [String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)])
        var check = MediaBlocksCheck(changed: nil, unsettled: [])
        for row in found {
            let read = blocks[try row.decode("n", as: Int.self)]
            if try row.decode("unsettled", as: Bool.self) {
                check.unsettled.append(read)
            } else if check.changed == nil {
                check.changed = MediaChangedError(asset: read.asset, path: read.path)
            }
        }
        return check
    }
}

extension FarmStore {
    /// The version of each asset job `id` was submitted with (or re-pinned to), by asset id.
    public func mediaPins(ofJob id: Int64) throws -> [String: MediaPin] {
        guard
            let text = try connection.query("SELECT media_pins FROM jobs WHERE id = $1", [String(id)]).first?.decode(
                "media_pins", as: String.self)
        else { return [:] }
        return try JSONColumn.decode(text) as [String: MediaPin]
    }
}
