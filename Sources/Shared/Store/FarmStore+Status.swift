import FarmCore
import Foundation

/// The read side for operators: one query per view, so a view is one consistent snapshot.
extension FarmStore {
    /// Jobs, newest first: all of them, or only `id`.
    public func jobStatuses(id: Int64? = nil, limit: Int = 1000) throws -> [JobStatus] {
        try connection.query(
            """
            SELECT j.id, j.name, j.state, j.paused, j.priority, j.frame_count, j.output_path, j.error,
                   extract(epoch FROM j.submitted_at), extract(epoch FROM j.started_at),
                   extract(epoch FROM j.finished_at),
                   extract(epoch FROM now()),
                   n.frames_done, n.queued, n.running, n.done, n.failed, n.total, n.rendered,
                   (SELECT data_folder_problem FROM farm_identity),
                   (SELECT extract(epoch FROM coordinator_seen_at) FROM farm_identity),
                   (SELECT coordinator_running FROM farm_identity),
                   j.segment_bytes
            FROM (SELECT * FROM jobs WHERE $1::bigint IS NULL OR id = $1::bigint ORDER BY id DESC LIMIT $2) j
            -- Counts kept per job as chunks change (migration 9): a job of 100,000 chunks costs
            -- what one of ten does.
            CROSS JOIN LATERAL (
                SELECT coalesce(sum(t.queued), 0) AS queued, coalesce(sum(t.running), 0) AS running,
                       coalesce(sum(t.done), 0) AS done, coalesce(sum(t.done_frames), 0) AS done_frames
                FROM chunk_tallies t WHERE t.job_id = j.id) t
            -- The chunks rendering now or waiting after a failure, through their own index.
            CROSS JOIN LATERAL (
                SELECT coalesce(sum(a.frames_done) FILTER (WHERE c.state = 'running' AND c.kind = 'video'
                                                         AND a.outcome = 'running'), 0) AS running_frames,
                       count(*) FILTER (WHERE c.state = 'queued' AND a.outcome = 'failed') AS failed
                FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
                WHERE c.job_id = j.id AND c.state <> 'done' AND c.attempt > 0) r
            CROSS JOIN LATERAL (
                SELECT t.done_frames + r.running_frames AS frames_done, t.queued - r.failed AS queued,
                       t.running, t.done, r.failed, t.queued + t.running + t.done AS total,
                       t.done_frames + r.running_frames - j.frames_kept AS rendered) n
            ORDER BY j.id DESC
            """, [id.map(String.init), String(limit)]
        ).map(Self.jobStatus)
    }

    /// One job with its chunks and newest errors: every chunk, or (`everyChunk` false) only
    /// those rendering now or failed, which is what an operator reads in a job of 100,000.
    public func jobDetail(_ id: Int64, everyChunk: Bool = true) throws -> JobDetail {
        guard let job = try jobStatuses(id: id).first else { throw FarmControlError.noSuchJob(id) }
        let chunks = try chunkStatuses(job: id, everyChunk: everyChunk, withErrors: true)
        let errors = try attempts(job: id, where: "a.outcome IN ('failed', 'lost')", newestFirst: true, limit: 5)
        return JobDetail(job: job, chunks: chunks, errors: errors)
    }

    /// A job's chunks as `jobDetail` lists them; without `withErrors`, not each one's last error
    /// (a lookup per chunk that the dashboard's chunk map does without).
    public func chunkStatuses(job id: Int64, everyChunk: Bool, withErrors: Bool) throws -> [ChunkStatus] {
        try connection.query(
            """
            SELECT c.idx, c.kind, c.start_frame, c.end_frame,
                   CASE WHEN c.state = 'queued' AND a.outcome = 'failed' THEN 'failed'
                        WHEN c.state = 'done' AND a.outcome = 'reused' THEN 'reused' ELSE c.state END,
                   a.worker_id, c.attempt,
                   CASE WHEN c.state = 'done' THEN c.end_frame - c.start_frame
                        WHEN c.state = 'running' THEN coalesce(a.frames_done, 0) ELSE 0 END,
                   CASE WHEN c.state <> 'queued' THEN a.fps END,
                   CASE WHEN c.state <> 'queued'
                        THEN extract(epoch FROM coalesce(a.finished_at, now()) - a.started_at) END,
                   CASE WHEN $3::boolean
                        THEN (SELECT x.error FROM attempts x WHERE x.chunk_id = c.id AND x.outcome IN ('failed', 'lost')
                              ORDER BY x.attempt DESC LIMIT 1) END
            FROM chunks c LEFT JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
            WHERE c.job_id = $1
              AND ($2::boolean
                   OR (c.state <> 'done' AND c.attempt > 0  -- chunks_tried
                       AND (c.state = 'running' OR a.outcome = 'failed')))
            ORDER BY c.kind = 'audio' DESC, c.idx
            """, [String(id), everyChunk ? "true" : "false", withErrors ? "true" : "false"]
        ).map { row in
            ChunkStatus(
                index: Int(row.int(0)), kind: try ChunkKind(stored: row.string(1)), start: row.int(2), end: row.int(3),
                state: try ChunkStatus.State(stored: row.string(4)),
                worker: row[5], attempt: Int(row.int(6)), framesDone: row.int(7), fps: row.double(8),
                seconds: row.double(9),
                error: row[10])
        }
    }

    /// Every attempt of a job in the order they were made, or of one chunk (a video chunk
    /// unless `kind` says audio).
    public func attemptLog(job id: Int64, chunk: Int? = nil, kind: ChunkKind = .video) throws -> [AttemptStatus] {
        guard try self.job(id) != nil else { throw FarmControlError.noSuchJob(id) }
        if let chunk {
            guard
                try !connection.query(
                    "SELECT 1 FROM chunks WHERE job_id = $1 AND kind = $3 AND idx = $2",
                    [String(id), String(chunk), kind.rawValue]
                ).isEmpty
            else { throw FarmControlError.noSuchChunk(job: id, index: chunk) }
            return try attempts(
                job: id, where: "c.kind = $4 AND c.idx = $3", parameters: [String(chunk), kind.rawValue])
        }
        return try attempts(job: id)
    }

    /// Workers by id, with what they hold and what they have done.
    public func workerStatuses() throws -> [WorkerStatus] {
        try connection.query(
            """
            SELECT w.id, w.host, w.state, w.draining, w.cores, w.slots, w.version,
                   extract(epoch FROM w.last_seen), extract(epoch FROM now() - w.last_seen),
                   (SELECT count(*) FROM attempts a WHERE a.worker_id = w.id AND a.outcome = 'done'),
                   (SELECT sum(a.frames_done) / nullif(sum(a.frames_done / nullif(a.fps, 0)), 0)
                    FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE a.worker_id = w.id AND a.outcome = 'done' AND c.kind = 'video'),
                   (SELECT string_agg(c.job_id || ' ' || c.kind || ' ' || c.idx, ',' ORDER BY c.job_id, c.kind, c.idx)
                    FROM chunks c WHERE c.worker_id = w.id AND c.state = 'running')
            FROM workers w ORDER BY w.id
            """
        ).map { row in
            let holding = try (row[11] ?? "").split(separator: ",").compactMap { entry -> WorkerStatus.Holding? in
                let parts = entry.split(separator: " ")
                guard parts.count == 3, let job = Int64(parts[0]), let chunk = Int(parts[2]) else { return nil }
                return WorkerStatus.Holding(job: job, kind: try ChunkKind(stored: String(parts[1])), chunk: chunk)
            }
            let draining = row.bool(3)
            let stored = try WorkerState(stored: row.string(2))
            return WorkerStatus(
                id: row.string(0), host: row.string(1), state: draining && stored != .lost ? .draining : stored,
                draining: draining, cores: Int(row.int(4)), slots: Int(row.int(5)), version: row.string(6),
                current: holding,
                lastHeartbeat: Self.timestamp(row.double(7)) ?? "", secondsSinceHeartbeat: row.double(8) ?? 0,
                chunksDone: Int(row.int(9)), averageFps: row.double(10))
        }
    }

    // MARK: Helpers

    private func attempts(
        job: Int64, where condition: String = "true", parameters: [String] = [], newestFirst: Bool = false,
        limit: Int = 1_000_000
    ) throws -> [AttemptStatus] {
        // `condition` is one of this file's fixed fragments; its values go in as $3 and on.
        try connection.query(
            """
            SELECT c.idx, c.kind, a.attempt, a.worker_id, a.outcome,
                   extract(epoch FROM a.started_at), extract(epoch FROM a.finished_at),
                   extract(epoch FROM coalesce(a.finished_at, now()) - a.started_at), a.frames_done, a.fps, a.error
            FROM attempts a JOIN chunks c ON c.id = a.chunk_id
            WHERE c.job_id = $1 AND \(condition)
            ORDER BY a.id \(newestFirst ? "DESC" : "") LIMIT $2
            """, [String(job), String(limit)] + parameters
        ).map { row in
            AttemptStatus(
                chunk: Int(row.int(0)), kind: try ChunkKind(stored: row.string(1)), attempt: Int(row.int(2)),
                worker: row.string(3), outcome: try AttemptOutcome(stored: row.string(4)),
                startedAt: Self.timestamp(row.double(5)) ?? "", finishedAt: Self.timestamp(row.double(6)),
                seconds: row.double(7) ?? 0, framesDone: row.int(8), fps: row.double(9), error: row[10])
        }
    }

    private static func jobStatus(_ row: Row) throws -> JobStatus {
        let state = try JobState(stored: row.string(2))
        let frameCount = row.int(5)
        let framesDone = state == .done ? frameCount : row.int(12)
        let now = row.double(11) ?? 0
        let started = row.double(9)
        let elapsed = started.map { (row.double(10) ?? now) - $0 }
        // Only frames rendered since this run started: chunks kept from before a retry took no time now.
        let rendered = row.int(18)
        let fps = elapsed.flatMap { $0 > 0 && rendered > 0 ? Double(rendered) / $0 : nil }
        let live = state.isClaimable
        let eta = live ? fps.map { Double(frameCount - framesDone) / $0 } : nil
        return JobStatus(
            id: row.int(0), name: row.string(1), state: state, paused: row.bool(3), priority: Int(row.int(4)),
            framesDone: framesDone, frameCount: frameCount,
            percent: frameCount > 0 ? (Double(framesDone) * 1000 / Double(frameCount)).rounded() / 10 : 100,
            fps: fps, etaSeconds: eta, elapsedSeconds: elapsed, submittedAt: timestamp(row.double(8)) ?? "",
            startedAt: timestamp(started), finishedAt: timestamp(row.double(10)),
            chunks: ChunkCounts(
                queued: Int(row.int(13)), running: Int(row.int(14)), done: Int(row.int(15)), failed: Int(row.int(16)),
                total: Int(row.int(17))),
            output: row.string(6), error: row[7],
            // The farm's trouble holds up every job still to finish.
            warning: state.isFinished ? nil : farmWarning(row, now: now),
            segmentBytes: state.isFinished ? row[22].flatMap { Int64($0) } : nil)
    }

    /// A missing coordinator, then a data folder it cannot write, in one line.
    private static func farmWarning(_ row: Row, now: Double) -> String? {
        let liveness = CoordinatorLiveness(lastSeen: row.double(20), running: row.bool(21), now: now)
        let warnings = [liveness.warning, row[19]].compactMap { $0 }
        return warnings.isEmpty ? nil : warnings.joined(separator: "; ")
    }

    /// Seconds since 1970 as ISO 8601 in UTC.
    public static func timestamp(_ epoch: Double?) -> String? {
        epoch.map { Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date(timeIntervalSince1970: $0)) }
    }
}
