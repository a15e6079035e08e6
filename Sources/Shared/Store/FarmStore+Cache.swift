import FarmCore
import FarmPostgres

/// The segment cache's index (migration 15). The files are the coordinator's, in `DATA/cache`;
/// these rows say which keys it holds, so that any machine that submits can look them up.
public struct CachedSegment: Sendable, Equatable {
    /// A GOP's entry (`ChunkGrains`): frames `frames` of the cached segment `key`.
    public struct Within: Sendable, Equatable {
        public var key: String
        public var frames: Range<Int64>
    }

    public var kind: ChunkKind
    public var index: Int
    public var key: String
    /// The bytes' checksum: for a GOP's entry, of the segment it is cut from.
    public var sha256: String
    public var within: Within? = nil
}

extension FarmStore {
    /// At submission, inside its transaction: every chunk whose key the cache holds, made by
    /// the kind of render node chosen (`cachedKind`), is done with one attempt `reused` by the
    /// worker `cache`, its entry counts as used now, and the job renders on that kind.
    func reuseCachedSegments(job id: Int64) throws {
        guard let kind = try cachedKind(job: id) else { return }
        let reused = try connection.query(
            """
            WITH hits AS (
                UPDATE chunks c SET state = 'done', attempt = 1
                FROM segment_cache s
                WHERE c.job_id = $1 AND c.content_key = s.key AND s.kind = c.kind AND s.node_kind = $2
                RETURNING c.id, c.kind, c.end_frame - c.start_frame AS frames, c.end_sample - c.start_sample AS samples,
                          s.key),
            -- A GOP's entry uses the segment it is cut from, which must stay as long.
            used AS (
                UPDATE segment_cache SET last_used_at = now()
                WHERE key IN (SELECT key FROM hits)
                   OR key IN (SELECT within FROM segment_cache WHERE key IN (SELECT key FROM hits))),
            -- Frames no worker renders: the job's fps and ETA count what this run renders.
            kept AS (
                UPDATE jobs SET frames_kept = frames_kept
                    + (SELECT coalesce(sum(frames), 0) FROM hits)
                WHERE id = $1)
            INSERT INTO attempts (chunk_id, attempt, worker_id, outcome, finished_at, frames_done, samples_done,
                                  node_kind)
            SELECT id, 1, 'cache', 'reused', now(), coalesce(frames, 0), samples, $2
            FROM hits
            RETURNING chunk_id
            """, [String(id), kind])
        try connection.query("UPDATE jobs SET node_kind = $2 WHERE id = $1", [String(id), kind])
        try count(.chunksReused, by: Double(reused.count))
    }

    /// Which of `keys` the cache holds for chunks of `kind`, in one query.
    public func cachedKeys(among keys: [String], kind: ChunkKind) throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return Set(
            try connection.query(
                "SELECT key FROM segment_cache WHERE key = ANY($1::text[]) AND kind = $2",
                [PostgresArray.text(keys), kind.rawValue]
            ).map { try $0.decode("key", as: String.self) })
    }

    /// The kind of render node whose cached segments a new job reuses: of the kinds that made
    /// some of its chunks, one a live worker able to take the job has (the most hits first); when
    /// no worker is live at all, the one with the most hits. Nil when no kind qualifies: a farm
    /// whose workers were all upgraded renders afresh rather than join old bytes with new.
    private func cachedKind(job id: Int64) throws -> String? {
        try connection.query(
            """
            WITH live AS (SELECT w.node_kind, w.tags FROM workers w WHERE w.state <> 'lost'),
            hits AS (
                SELECT s.node_kind, count(*) AS hits,
                       EXISTS (SELECT 1 FROM live l WHERE l.node_kind = s.node_kind AND l.tags @> j.requires) AS able
                FROM chunks c JOIN segment_cache s ON s.key = c.content_key AND s.kind = c.kind
                     JOIN jobs j ON j.id = c.job_id
                WHERE c.job_id = $1 AND s.node_kind IS NOT NULL
                GROUP BY s.node_kind, j.requires)
            SELECT node_kind FROM hits WHERE able OR NOT EXISTS (SELECT 1 FROM live)
            ORDER BY able DESC, hits DESC, node_kind LIMIT 1
            """, [String(id)]
        ).first?.decode("node_kind")
    }

    /// A job's chunks done by the cache whose files the coordinator has yet to put in the job's
    /// folder (it checks each against `sha256` first).
    public func reusedChunks(job id: Int64) throws -> [CachedSegment] {
        try connection.query(
            """
            SELECT c.kind, c.idx, s.key, s.sha256, s.within, s.first_frame, s.frames
            FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
                 JOIN segment_cache s ON s.key = c.content_key
            WHERE c.job_id = $1 AND c.state = 'done' AND a.outcome = 'reused'
            ORDER BY c.kind, c.idx
            """, [String(id)]
        ).map { row in
            let within: CachedSegment.Within? =
                if let key: String = try row.decode("within") {
                    CachedSegment.Within(
                        key: key,
                        frames: try row.decode("first_frame")..<(try row.decode("first_frame") + row.decode("frames")))
                } else { nil }
            return CachedSegment(
                kind: try row.decode("kind"), index: try row.decode("idx"), key: try row.decode("key"),
                sha256: try row.decode("sha256"), within: within)
        }
    }

    /// How many of a job's chunks and audio blocks the cache did.
    public func reusedChunkCount(job id: Int64) throws -> Int {
        try connection.query(
            """
            SELECT count(*) AS reused FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
            WHERE c.job_id = $1 AND c.state = 'done' AND a.outcome = 'reused'
            """, [String(id)])[0].decode("reused")
    }

    /// Records an accepted segment under its key, held in data folder `folder`, made by the
    /// kind of render node of attempt `made` (its bytes are that kind's); and each of its GOPs
    /// the chunk records (`ChunkGrains`) as an entry within it, unless the key is held already.
    public func cacheSegment(
        key: String, folder: String, kind: ChunkKind, bytes: Int64, sha256: String, made: AttemptKey
    ) throws {
        try connection.query(
            """
            WITH whole AS (
                INSERT INTO segment_cache (key, folder, kind, bytes, sha256, node_kind)
                VALUES ($1, $2, $3, $4, $5,
                        (SELECT node_kind FROM attempts WHERE chunk_id = $6 AND attempt = $7))
                ON CONFLICT (key) DO UPDATE SET folder = EXCLUDED.folder, bytes = EXCLUDED.bytes,
                    sha256 = EXCLUDED.sha256, node_kind = EXCLUDED.node_kind, last_used_at = now(),
                    within = NULL, first_frame = NULL, frames = NULL
                RETURNING key, node_kind)
            INSERT INTO segment_cache (key, folder, kind, bytes, sha256, node_kind, within, first_frame, frames)
            SELECT g.key, $2, $3, 0, $5, whole.node_kind, whole.key,
                   coalesce(c.grain_ends[g.n - 1], c.start_frame) - c.start_frame,
                   g.ends - coalesce(c.grain_ends[g.n - 1], c.start_frame)
            FROM whole, chunks c, unnest(c.grain_keys, c.grain_ends) WITH ORDINALITY AS g(key, ends, n)
            WHERE c.id = $6 AND c.content_key = whole.key AND g.key <> whole.key
            ON CONFLICT (key) DO NOTHING
            """, [key, folder, kind.rawValue, String(bytes), sha256, String(made.chunk), String(made.attempt)])
    }

    /// A coordinator that starts to lead forgets entries in another data folder: it cannot
    /// reach their files, and a lookup that hits them would only be rendered late.
    public func forgetCachedSegments(outside folder: String) throws {
        try connection.query("DELETE FROM segment_cache WHERE folder <> $1", [folder])
    }

    /// Forgets entries (their files are gone or bad).
    public func forgetCachedSegments(_ keys: [String]) throws {
        guard !keys.isEmpty else { return }
        try connection.query("DELETE FROM segment_cache WHERE key = ANY($1::text[])", [PostgresArray.text(keys)])
    }

    /// What the cache holds.
    public func cacheUsage() throws -> (bytes: Int64, segments: Int) {
        // A GOP's entry is a part of a segment counted already.
        let row = try connection.query(
            """
            SELECT coalesce(sum(bytes), 0) AS bytes, count(*) FILTER (WHERE within IS NULL) AS segments
            FROM segment_cache
            """)[0]
        return (try row.decode("bytes"), try row.decode("segments"))
    }

    /// The least recently used entries to remove so that the rest hold at most `limit` bytes;
    /// their rows are deleted here, their files are the caller's to remove.
    public func evictCachedSegments(toFit limit: Int64) throws -> [String] {
        guard try cacheUsage().bytes > limit else { return [] }
        return try connection.query(
            """
            DELETE FROM segment_cache WHERE key IN (
                SELECT key FROM (
                    SELECT key, sum(bytes) OVER (ORDER BY last_used_at DESC, key) AS kept FROM segment_cache) newest
                WHERE kept > $1)
            RETURNING key
            """, [String(limit)]
        ).map { try $0.decode("key") }
    }

    /// `farm prune --cache`: forgets every entry now (no lookup finds one from here on) and asks
    /// the coordinator to remove the files. Returns what was forgotten.
    public func clearCache() throws -> (bytes: Int64, segments: Int) {
        try connection.transaction {
            let usage = try cacheUsage()
            try connection.query("DELETE FROM segment_cache")
            try connection.query("INSERT INTO farm_flags (name) VALUES ('clear-cache') ON CONFLICT DO NOTHING")
            return usage
        }
    }

    /// Takes the request to empty the cache folder, if there is one.
    public func takeCacheClearRequest() throws -> Bool {
        !(try connection.query("DELETE FROM farm_flags WHERE name = 'clear-cache' RETURNING name").isEmpty)
    }
}

extension FarmStore {
    /// The keys of `submission`'s video chunks the cache holds; and where it holds some but not
    /// all, also the GOPs' keys it holds of the chunks it lacks, the submission then cut at those
    /// GOPs (`JobSubmission.reuseCachedGrains`) and the cache told of each chunk made of GOPs
    /// that follow each other in one segment. A job none of whose chunks is cached (a first
    /// render) looks up no GOPs: the cost follows the re-render, not the job's length.
    public func reuseCachedGrains(_ submission: inout JobSubmission) throws -> Set<String> {
        var cached = try cachedKeys(among: submission.videoKeys, kind: .video)
        guard !cached.isEmpty else { return cached }
        let grains = submission.grainKeys(uncachedIn: cached)
        guard !grains.isEmpty else { return cached }
        let places = try cachedGrains(among: grains)
        cached.formUnion(places.keys)
        let cuts = submission.reuseCachedGrains(cached: cached, places: places)
        guard !cuts.isEmpty else { return cached }
        let keys = cuts.map { submission.videoKeys[$0.chunk] }
        // A chunk cached whole under the same key keeps its entry.
        try connection.query(
            """
            INSERT INTO segment_cache (key, folder, kind, bytes, sha256, node_kind, within, first_frame, frames)
            SELECT u.key, s.folder, 'video', 0, s.sha256, s.node_kind, s.key, u.first, u.frames
            FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS u(key, segment, first, frames)
                 JOIN segment_cache s ON s.key = u.segment AND s.within IS NULL
            ON CONFLICT (key) DO NOTHING
            """,
            [
                PostgresArray.text(keys), PostgresArray.text(cuts.map(\.segment)),
                PostgresArray.integers(cuts.map(\.frames.lowerBound)),
                PostgresArray.integers(cuts.map { Int64($0.frames.count) }),
            ])
        return cached.union(keys)
    }

    /// Where the cache holds each of `keys` it holds (video): within a segment, or a segment itself.
    func cachedGrains(among keys: [String]) throws -> [String: JobSubmission.CachedGrain] {
        var places: [String: JobSubmission.CachedGrain] = [:]
        for row in try connection.query(
            """
            SELECT key, coalesce(within, key) AS segment, coalesce(first_frame, 0) AS first FROM segment_cache
            WHERE key = ANY($1::text[]) AND kind = 'video'
            """, [PostgresArray.text(keys)])
        {
            places[try row.decode("key")] = JobSubmission.CachedGrain(
                segment: try row.decode("segment"), first: try row.decode("first"))
        }
        return places
    }
}
