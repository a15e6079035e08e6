import FarmCore
import FarmPostgres
import Foundation

/// Jobs: submitted with their chunks, joined, finished.
extension FarmStore {
    /// Records a job with its video chunks and audio blocks; returns the job id.
    public func submit(_ job: JobSubmission) throws -> Int64 {
        try connection.transaction {
            let id = try connection.query(
                """
                INSERT INTO jobs (name, priority, project_file, project_text, media_root, output_path, container,
                                  fps, frame_count, width, height, sample_rate, media_pins, notify_url, use_cache,
                                  requires, idempotency_key, idempotency_digest, waiting_for)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::text[], $17, $18,
                        $19::bigint[])
                RETURNING id
                """,
                [
                    job.name, String(job.priority), job.projectFile, job.projectText, job.mediaRoot, job.outputPath,
                    job.container.rawValue, job.fps.description, String(job.frameCount), String(job.width),
                    String(job.height), String(job.sampleRate), try JSONColumn.encode(job.mediaPins),
                    job.notifyURL, job.useCache ? "true" : "false", PostgresArray.text(job.requires),
                    job.idempotency?.key, job.idempotency?.digest,
                    job.after.isEmpty ? nil : PostgresArray.integers(job.after),
                ])[0].decode("id", as: Int64.self)
            // One statement per kind: a job of 100,000 chunks is two round trips, not 100,000.
            try insertChunks(job: id, job.audioBlocks, keys: job.audioKeys)
            try insertChunks(job: id, job.chunks, keys: job.videoKeys, grains: Self.grainColumns(of: job))
            try insertLoudnessRows(job: id, job.loudnessBlocks)
            if job.useCache { try reuseCachedSegments(job: id) }
            // Last, so that the jobs waited on are held only until this commits: one that
            // ends meanwhile waits for the commit, and its trigger then sees this job.
            if !job.after.isEmpty {
                let waiting = try awaited(job.after)
                try connection.query(
                    "UPDATE jobs SET waiting_for = $2::bigint[] WHERE id = $1",
                    [String(id), waiting.isEmpty ? nil : PostgresArray.integers(waiting)])
            }
            try notify(job: id)
            return id
        }
    }

    /// Of the jobs a new one is to wait on, those not done yet; an unknown one, or one that
    /// failed or was cancelled, refuses the submission. Their rows are held (`FOR SHARE`) from
    /// here to the commit.
    private func awaited(_ after: [Int64]) throws -> [Int64] {
        guard !after.isEmpty else { return [] }
        var states: [Int64: JobState] = [:]
        for row in try connection.query(
            "SELECT id, state FROM jobs WHERE id = ANY($1::bigint[]) FOR SHARE", [PostgresArray.integers(after)])
        {
            states[try row.decode("id")] = try row.decode("state")
        }
        for id in after {
            guard let state = states[id] else { throw FarmControlError.noSuchJob(id) }
            if state == .failed || state == .cancelled {
                throw FarmControlError.conflict(
                    "job \(id) is \(state.rawValue): a job waiting on it (--after \(id)) would never start; "
                        + "farm retry \(id) first")
            }
        }
        return Array(Set(after.filter { states[$0] != .done })).sorted()
    }

    /// The job submitted with `key` (`Idempotency-Key`), and the digest of what it asked.
    public func job(idempotencyKey key: String) throws -> (id: Int64, digest: String)? {
        try connection.query("SELECT id, idempotency_digest FROM jobs WHERE idempotency_key = $1", [key]).first.map {
            (try $0.decode("id", as: Int64.self), try $0.decode("idempotency_digest", as: String.self))
        }
    }

    /// The state and error of each of `ids`, in one query (`farm batch` follows its jobs so).
    public func states(of ids: [Int64]) throws -> [Int64: (state: JobState, error: String?)] {
        var states: [Int64: (state: JobState, error: String?)] = [:]
        for row in try connection.query(
            "SELECT id, state, error FROM jobs WHERE id = ANY($1::bigint[])", [PostgresArray.integers(ids)])
        {
            states[try row.decode("id")] = (try row.decode("state"), try row.decode("error"))
        }
        return states
    }

    public func job(_ id: Int64) throws -> JobRecord? {
        try connection.query("SELECT \(JobRecord.columns) FROM jobs WHERE id = $1", [String(id)]).first.map(
            JobRecord.init(row:))
    }

    /// A job's video chunks in order, in output frames.
    public func chunks(job: Int64) throws -> [Chunk] {
        try workItems(job: job, kind: .video).compactMap { if case .video(let chunk) = $0 { chunk } else { nil } }
    }

    /// A job's audio blocks in order, in timeline samples.
    public func audioBlocks(job: Int64) throws -> [AudioBlock] {
        try workItems(job: job, kind: .audio).compactMap { if case .audio(let block) = $0 { block } else { nil } }
    }

    private func workItems(job: Int64, kind: ChunkKind) throws -> [WorkItem] {
        try connection.query(
            "SELECT \(WorkItem.columns()) FROM chunks WHERE job_id = $1 AND kind = $2 ORDER BY idx",
            [String(job), kind.rawValue]
        ).map(WorkItem.init(row:))
    }

    /// Inserts `spans` with their keys, each span in its unit's pair of columns, and for video
    /// chunks of more than one GOP their GOPs' keys and ends (`grains`, each a comma-separated
    /// list per span, empty for none).
    private func insertChunks<Span: WorkSpan>(
        job id: Int64, _ spans: [Span], keys: [String], grains: (keys: [String], ends: [String])? = nil
    ) throws {
        guard !spans.isEmpty else { return }
        let columns = Span.kind == .video ? "start_frame, end_frame" : "start_sample, end_sample"
        let none = spans.map { _ in "" }
        let grains = grains.flatMap { $0.keys.count == spans.count ? $0 : nil } ?? (keys: none, ends: none)
        try connection.query(
            """
            INSERT INTO chunks (job_id, kind, idx, \(columns), content_key, grain_keys, grain_ends)
            SELECT $1, $2, i, s, e, nullif(k, ''), string_to_array(nullif(gk, ''), ','),
                   string_to_array(nullif(ge, ''), ',')::bigint[]
            FROM unnest($3::integer[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[])
                 AS u(i, s, e, k, gk, ge)
            """,
            [
                String(id), Span.kind.rawValue, PostgresArray.integers(spans.map(\.index)),
                PostgresArray.integers(spans.map(\.start)), PostgresArray.integers(spans.map(\.end)),
                keys.count == spans.count ? PostgresArray.text(keys) : PostgresArray.text(none),
                PostgresArray.text(grains.keys), PostgresArray.text(grains.ends),
            ])
    }

    /// A job's GOP keys and ends as `insertChunks` takes them; nil where the cache is not used
    /// or keeps chunks whole.
    private static func grainColumns(of job: JobSubmission) -> (keys: [String], ends: [String])? {
        guard job.useCache, let length = job.grainLength, job.grainKeys.count == job.chunks.count,
            job.grainKeys.contains(where: { !$0.isEmpty })
        else { return nil }
        return (
            job.grainKeys.map { $0.joined(separator: ",") },
            job.chunks.map { ChunkGrains.grains(of: $0, length: length).map { String($0.end) }.joined(separator: ",") }
        )
    }

    /// Unfinished jobs whose every chunk is done: they are waiting to be joined. A job waiting
    /// on others (`--after`) is not, even with every chunk taken from the cache.
    public func jobsReadyToJoin(among jobs: [Int64]? = nil) throws -> [JobRecord] {
        try connection.query(
            """
            SELECT \(JobRecord.columns) FROM jobs j
            WHERE state IN ('queued', 'running', 'joining') AND waiting_for IS NULL
              AND ($1::bigint[] IS NULL OR id = ANY($1::bigint[]))
              AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.job_id = j.id AND c.state <> 'done')
            ORDER BY id
            """, [jobs.map(PostgresArray.integers)]
        ).map(JobRecord.init(row:))
    }

    /// Marks a job as being joined if it still is live with every chunk done. The job row is
    /// locked first, as `farm retry` and `farm cancel` lock it, so neither can slip in between
    /// the check and the mark. Returns false when the join must not start.
    public func markJoining(job: Int64) throws -> Bool {
        try connection.transaction {
            let row = try connection.query(
                "SELECT state, waiting_for IS NULL AS free FROM jobs WHERE id = $1 FOR UPDATE", [String(job)]
            ).first
            guard let state = try row?.decode("state", as: JobState.self), !state.isFinished,
                try row?.decode("free", as: Bool.self) == true
            else {
                return false
            }
            let open = try connection.query(
                "SELECT count(*) AS open FROM chunks WHERE job_id = $1 AND state <> 'done'", [String(job)]
            )[0].decode("open", as: Int64.self)
            guard open == 0 else { return false }
            try connection.query("UPDATE jobs SET state = 'joining' WHERE id = $1", [String(job)])
            try notify(job: job)
            return true
        }
    }

    /// Ends a job after its join: done when `error` is nil, failed with that text otherwise.
    /// Returns false when the job left `joining` meanwhile (cancelled, or cancelled and sent
    /// back by `farm retry`): then this join's result does not count.
    @discardableResult
    /// `segmentBytes`: what its folder holds now, recorded with the end so that no reader sees
    /// the job ended with its segments unmeasured; nil leaves them to the retention pass.
    public func finish(job: Int64, error: String?, segmentBytes: Int64? = nil) throws -> Bool {
        let updated = try connection.query(
            """
            UPDATE jobs SET state = CASE WHEN $2::text IS NULL THEN 'done' ELSE 'failed' END,
                            error = $2, finished_at = now(), segment_bytes = $3::bigint
            WHERE id = $1 AND state = 'joining' RETURNING id
            """, [String(job), error, segmentBytes.map(String.init)])
        try notify(job: job)
        return !updated.isEmpty
    }

    /// Puts chunks back in the queue whose accepted segments are gone (removed after an earlier
    /// join), so a job sent back by `farm retry` renders them again instead of failing its join.
    public func requeue(job: Int64, chunks: [(kind: ChunkKind, index: Int)]) throws {
        for chunk in chunks { try requeueWithFreshTries(job: job, kind: chunk.kind, index: chunk.index) }
        try connection.query("UPDATE jobs SET state = 'running' WHERE id = $1 AND state = 'joining'", [String(job)])
        try notify(job: job)
    }

    /// Queues a chunk that is not rendering to be rendered again, with a fresh set of tries:
    /// the failures before now stop counting toward the limits.
    func requeueWithFreshTries(job: Int64, kind: ChunkKind, index: Int) throws {
        try connection.query(
            """
            UPDATE chunks SET state = 'queued', worker_id = NULL, lease_expires = NULL, failures_from = attempt
            WHERE job_id = $1 AND kind = $2 AND idx = $3 AND state <> 'running'
            """, [String(job), kind.rawValue, String(index)])
    }
}
