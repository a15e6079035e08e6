import FarmCore
import FarmPostgres
import Foundation

/// The read side for operators: one query per view, so a view is one consistent snapshot.
extension FarmStore {
    /// Jobs, newest first: all of them (those older than the job `before`, when given, a page
    /// at a time), or only `id`.
    public func jobStatuses(id: Int64? = nil, limit: Int = 1000, before: Int64? = nil) throws -> [JobStatus] {
        try connection.query(
            """
            SELECT j.id, j.name, j.state, j.paused, j.priority, j.frame_count, j.output_path, j.error,
                   extract(epoch FROM j.submitted_at) AS submitted, extract(epoch FROM j.started_at) AS started,
                   extract(epoch FROM j.finished_at) AS finished,
                   extract(epoch FROM now()) AS now,
                   n.frames_done, n.queued, n.running, n.done, n.failed, n.total, n.rendered, r.running_fps,
                   (SELECT data_folder_problem FROM farm_identity) AS data_folder_problem,
                   (SELECT extract(epoch FROM coordinator_seen_at) FROM farm_identity) AS coordinator_seen,
                   (SELECT coordinator_running FROM farm_identity) AS coordinator_running,
                   j.segment_bytes,
                   -- Tags hold no commas (`PoolTags`).
                   array_to_string(j.requires, ',') AS requires,
                   coalesce(array_to_string(j.waiting_for, ','), '') AS waiting_for,
                   coalesce((SELECT w.node_summary FROM workers w WHERE w.node_kind = j.node_kind LIMIT 1),
                            'kind ' || j.node_kind) AS kind_summary,
                   (SELECT count(*) FROM workers w
                    WHERE w.state <> 'lost' AND NOT w.draining) AS live_workers,
                   (SELECT count(*) FROM workers w
                    WHERE w.state <> 'lost' AND NOT w.draining AND w.tags @> j.requires) AS tagged_workers,
                   (SELECT count(*) FROM workers w
                    WHERE w.state <> 'lost' AND NOT w.draining AND w.tags @> j.requires
                      AND (j.node_kind IS NULL OR w.node_kind = j.node_kind)) AS able_workers
            FROM (SELECT * FROM jobs WHERE ($1::bigint IS NULL OR id = $1::bigint)
                                        AND ($3::bigint IS NULL OR id < $3::bigint) ORDER BY id DESC LIMIT $2) j
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
                       sum(a.fps) FILTER (WHERE c.state = 'running' AND c.kind = 'video'
                                          AND a.outcome = 'running') AS running_fps,
                       count(*) FILTER (WHERE c.state = 'queued' AND a.outcome = 'failed') AS failed
                FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
                WHERE c.job_id = j.id AND c.state <> 'done' AND c.attempt > 0) r
            CROSS JOIN LATERAL (
                SELECT t.done_frames + r.running_frames AS frames_done, t.queued - r.failed AS queued,
                       t.running, t.done, r.failed, t.queued + t.running + t.done AS total,
                       t.done_frames + r.running_frames - j.frames_kept AS rendered) n
            ORDER BY j.id DESC
            """, [id.map(String.init), String(limit), before.map(String.init)]
        ).map(Self.jobStatus)
    }

    /// One job with its chunks and newest errors: every chunk, or (`everyChunk` false) only
    /// those rendering now or failed, which is what an operator reads in a job of 100,000.
    /// One job with its chunks (every one, or those rendering or failed), at most `limit` of
    /// them in chunk order.
    public func jobDetail(_ id: Int64, everyChunk: Bool = true, limit: Int? = nil) throws -> JobDetail {
        guard let job = try jobStatuses(id: id).first else { throw FarmControlError.noSuchJob(id) }
        let chunks = try chunkStatuses(job: id, everyChunk: everyChunk, withErrors: true, limit: limit)
        let errors = try attempts(job: id, where: "a.outcome IN ('failed', 'lost')", newestFirst: true, limit: 5)
        var detail = JobDetail(job: job, chunks: chunks, errors: errors)
        // Counted once a job has ended, for its summary: a running job's view never pays for it.
        if job.state.isFinished {
            var kinds = KindCounts()
            for row in try connection.query(
                "SELECT kind, count(*) AS n FROM chunks WHERE job_id = $1 GROUP BY kind", [String(id)])
            {
                let count: Int = try row.decode("n")
                switch try row.decode("kind", as: ChunkKind.self) {
                case .video: kinds.video = count
                case .audio: kinds.audio = count
                case .loudness: kinds.loudness = count
                }
            }
            detail.kinds = kinds
        }
        return detail
    }

    /// A job's chunks as `jobDetail` lists them; without `withErrors`, not each one's last error
    /// (a lookup per chunk that the dashboard's chunk map does without).
    public func chunkStatuses(job id: Int64, everyChunk: Bool, withErrors: Bool, limit: Int? = nil) throws
        -> [ChunkStatus]
    {
        try connection.query(
            """
            SELECT \(WorkItem.columns(of: "c")),
                   CASE WHEN c.state = 'queued' AND a.outcome = 'failed' THEN 'failed'
                        WHEN c.state = 'done' AND a.outcome = 'reused' THEN 'reused' ELSE c.state END AS state,
                   a.worker_id, c.attempt,
                   CASE WHEN c.kind <> 'video' THEN NULL
                        WHEN c.state = 'done' THEN c.end_frame - c.start_frame
                        WHEN c.state = 'running' THEN coalesce(a.frames_done, 0) ELSE 0 END AS frames_done,
                   CASE WHEN c.kind <> 'audio' THEN NULL
                        WHEN c.state = 'done' THEN c.end_sample - c.start_sample
                        WHEN c.state = 'running' THEN coalesce(a.samples_done, 0) ELSE 0 END AS samples_done,
                   j.sample_rate,
                   CASE WHEN c.state <> 'queued' THEN a.fps END AS fps,
                   CASE WHEN c.state <> 'queued'
                        THEN extract(epoch FROM coalesce(a.finished_at, now()) - a.started_at) END AS seconds,
                   CASE WHEN $3::boolean
                        THEN (SELECT x.error FROM attempts x WHERE x.chunk_id = c.id AND x.outcome IN ('failed', 'lost')
                              ORDER BY x.attempt DESC LIMIT 1) END AS error
            FROM chunks c LEFT JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
                 JOIN jobs j ON j.id = c.job_id
            WHERE c.job_id = $1
              AND ($2::boolean
                   OR (c.state <> 'done' AND c.attempt > 0  -- chunks_tried
                       AND (c.state = 'running' OR a.outcome = 'failed')))
            ORDER BY c.kind = 'audio' DESC, c.idx
            LIMIT $4
            """, [String(id), everyChunk ? "true" : "false", withErrors ? "true" : "false", limit.map(String.init)]
        ).map { row in
            let work = try WorkItem(row: row)
            let samples: Int64? = try row.decode("samples_done")
            let rate: Int = try row.decode("sample_rate")
            return ChunkStatus(
                index: work.index, kind: work.kind, start: work.start, end: work.end, state: try row.decode("state"),
                worker: try row.decode("worker_id"), attempt: try row.decode("attempt"),
                framesDone: try row.decode("frames_done"), samplesDone: samples,
                soundSeconds: Self.seconds(of: samples, rate: rate), sampleRate: work.kind == .audio ? rate : nil,
                fps: try row.decode("fps"),
                seconds: try row.decode("seconds"), error: try row.decode("error"))
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
            else {
                throw kind == .audio
                    ? FarmControlError.noSuchAudioBlock(job: id, index: chunk)
                    : FarmControlError.noSuchChunk(job: id, index: chunk)
            }
            return try attempts(
                job: id, where: "c.kind = $4 AND c.idx = $3", parameters: [String(chunk), kind.rawValue],
                withLogs: true)
        }
        return try attempts(job: id)
    }

    /// A worker's newest attempts, newest first, over every job: what the dashboard's worker
    /// history shows. Bounded by `limit`, found through the attempts' index on the worker.
    public func workerAttempts(worker id: String, limit: Int) throws -> [AttemptStatus] {
        let rows = try connection.query(
            """
            SELECT c.job_id, \(Self.attemptColumns), NULL::text AS log
            FROM attempts a JOIN chunks c ON c.id = a.chunk_id JOIN jobs j ON j.id = c.job_id
            WHERE a.worker_id = $1
            ORDER BY a.id DESC LIMIT $2
            """, [id, String(limit)])
        if rows.isEmpty, try connection.query("SELECT 1 FROM workers WHERE id = $1", [id]).isEmpty {
            throw FarmControlError.noSuchWorker(id, similar: try workers(like: id))
        }
        return try rows.map { row in
            var attempt = try Self.attemptStatus(row)
            attempt.job = try row.decode("job_id")
            return attempt
        }
    }

    /// Workers by id, with what they hold and what they have done.
    public func workerStatuses() throws -> [WorkerStatus] {
        try connection.query(
            """
            SELECT w.id, w.host, w.state, w.draining, w.cores, w.slots, w.version, array_to_string(w.tags, ',') AS tags,
                   w.node_kind, w.node_summary,
                   extract(epoch FROM w.last_seen) AS last_seen, extract(epoch FROM now() - w.last_seen) AS silent,
                   (SELECT count(*) FROM attempts a WHERE a.worker_id = w.id AND a.outcome = 'done') AS chunks_done,
                   (SELECT sum(a.frames_done) / nullif(sum(a.frames_done / nullif(a.fps, 0)), 0)
                    FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE a.worker_id = w.id AND a.outcome = 'done' AND c.kind = 'video') AS average_fps,
                   (SELECT sum(a.fps) FROM chunks c JOIN attempts a ON a.chunk_id = c.id AND a.attempt = c.attempt
                    WHERE c.worker_id = w.id AND c.state = 'running' AND c.kind = 'video') AS current_fps,
                   (SELECT string_agg(c.job_id || ' ' || c.kind || ' ' || c.idx, ',' ORDER BY c.job_id, c.kind, c.idx)
                    FROM chunks c WHERE c.worker_id = w.id AND c.state = 'running') AS holding
            FROM workers w ORDER BY w.id
            """
        ).map { row in
            // NULL when it holds nothing (string_agg of no rows).
            let held = try row.decode("holding", as: String?.self) ?? ""
            let holding = try held.split(separator: ",").compactMap { entry -> WorkerStatus.Holding? in
                let parts = entry.split(separator: " ")
                guard parts.count == 3, let job = Int64(parts[0]), let chunk = Int(parts[2]) else { return nil }
                return WorkerStatus.Holding(job: job, kind: try ChunkKind(stored: String(parts[1])), chunk: chunk)
            }
            let draining: Bool = try row.decode("draining")
            let stored: WorkerState = try row.decode("state")
            return WorkerStatus(
                id: try row.decode("id"), host: try row.decode("host"),
                state: draining && stored != .lost ? .draining : stored, draining: draining,
                cores: try row.decode("cores"), slots: try row.decode("slots"), version: try row.decode("version"),
                current: holding, lastHeartbeat: Self.timestamp(try row.decode("last_seen", as: Double.self)) ?? "",
                secondsSinceHeartbeat: try row.decode("silent"), chunksDone: try row.decode("chunks_done"),
                averageFps: try row.decode("average_fps"), currentFps: try row.decode("current_fps"),
                tags: try Self.tagList(row, "tags"),
                kind: try row.decode("node_kind"), kindSummary: try row.decode("node_summary"))
        }
    }

    // MARK: Helpers

    private func attempts(
        job: Int64, where condition: String = "true", parameters: [String] = [], newestFirst: Bool = false,
        limit: Int = 1_000_000, withLogs: Bool = false
    ) throws -> [AttemptStatus] {
        // `condition` is one of this file's fixed fragments; its values go in as $3 and on.
        try connection.query(
            """
            SELECT \(Self.attemptColumns), CASE WHEN \(withLogs) THEN a.log END AS log
            FROM attempts a JOIN chunks c ON c.id = a.chunk_id JOIN jobs j ON j.id = c.job_id
            WHERE c.job_id = $1 AND \(condition)
            ORDER BY a.id \(newestFirst ? "DESC" : "") LIMIT $2
            """, [String(job), String(limit)] + parameters
        ).map(Self.attemptStatus)
    }

    /// What `attemptStatus` reads, from attempts `a`, chunks `c` and jobs `j`.
    private static let attemptColumns = """
        c.idx, c.kind, a.attempt, a.worker_id, a.outcome,
        extract(epoch FROM a.started_at) AS started, extract(epoch FROM a.finished_at) AS finished,
        extract(epoch FROM coalesce(a.finished_at, now()) - a.started_at) AS seconds,
        CASE WHEN c.kind = 'video' THEN a.frames_done END AS frames_done, a.fps, a.samples_done,
        j.sample_rate, a.error
        """

    /// An attempt from `attemptColumns` and a `log` column (NULL when not asked for).
    private static func attemptStatus(_ row: PostgresRow) throws -> AttemptStatus {
        let samples: Int64? = try row.decode("samples_done")
        let log: String? = try row.decode("log")
        return AttemptStatus(
            chunk: try row.decode("idx"), kind: try row.decode("kind"), attempt: try row.decode("attempt"),
            worker: try row.decode("worker_id"), outcome: try row.decode("outcome"),
            startedAt: timestamp(try row.decode("started", as: Double.self)) ?? "",
            finishedAt: timestamp(try row.decode("finished")), seconds: try row.decode("seconds"),
            framesDone: try row.decode("frames_done"), fps: try row.decode("fps"), samplesDone: samples,
            soundSeconds: try seconds(of: samples, rate: row.decode("sample_rate")),
            error: try row.decode("error"), log: log.map { $0.components(separatedBy: "\n") })
    }

    /// Seconds of sound in `samples` at `rate`.
    private static func seconds(of samples: Int64?, rate: Int) -> Double? {
        samples.map { Double($0) / Double(max(1, rate)) }
    }

    private static func jobStatus(_ row: PostgresRow) throws -> JobStatus {
        let state: JobState = try row.decode("state")
        let frameCount: Int64 = try row.decode("frame_count")
        let framesDone = try state == .done ? frameCount : row.decode("frames_done", as: Int64.self)
        let now: Double = try row.decode("now")
        let started: Double? = try row.decode("started")
        let finished: Double? = try row.decode("finished")
        let elapsed = started.map { (finished ?? now) - $0 }
        // Only frames rendered since this run started: chunks kept from before a retry took no time now.
        let rendered: Int64 = try row.decode("rendered")
        let average = elapsed.flatMap { $0 > 0 && rendered > 0 ? Double(rendered) / $0 : nil }
        let live = state.isClaimable
        let paused: Bool = try row.decode("paused")
        let fps = try live ? row.decode("running_fps", as: Double?.self).flatMap { $0 > 0 ? $0 : nil } : nil
        let liveness = try coordinatorLiveness(row, now: now)
        let eta =
            live && !paused && liveness.isServing ? fps.map { Double(max(0, frameCount - framesDone)) / $0 } : nil
        // The farm's trouble holds up every job still to finish.
        let warning = try state.isFinished ? nil : farmWarning(row, now: now)
        let segmentBytes: Int64? = try state.isFinished ? row.decode("segment_bytes") : nil
        let requires = try tagList(row, "requires")
        var counts = ChunkCounts(
            queued: try row.decode("queued"), running: try row.decode("running"), done: try row.decode("done"),
            failed: try row.decode("failed"), total: try row.decode("total"))
        if state == .failed || state == .cancelled {
            counts = ChunkCounts(
                queued: 0, running: 0, done: counts.done, failed: 0, total: counts.total,
                unfinished: counts.total - counts.done)
        }
        let waitsOn = try row.decode("waiting_for", as: String.self).split(separator: ",").compactMap { Int64($0) }
        var waiting =
            live && !paused && counts.running == 0 && counts.queued + counts.failed > 0
            ? try waitingReason(row, requires: requires) : nil
        if live, !waitsOn.isEmpty {
            let jobs = waitsOn.map(String.init).joined(separator: ", ")
            waiting = "job\(waitsOn.count == 1 ? "" : "s") \(jobs) to finish (--after)"
        }
        return JobStatus(
            id: try row.decode("id"), name: try row.decode("name"), state: state, paused: paused,
            priority: try row.decode("priority"), framesDone: framesDone, frameCount: frameCount,
            percent: frameCount > 0 ? (Double(framesDone) * 1000 / Double(frameCount)).rounded() / 10 : 100,
            fps: fps, etaSeconds: eta, elapsedSeconds: elapsed,
            submittedAt: timestamp(try row.decode("submitted", as: Double.self)) ?? "",
            startedAt: timestamp(started), finishedAt: timestamp(finished),
            chunks: counts,
            output: try row.decode("output_path"), error: try row.decode("error"), warning: warning,
            segmentBytes: segmentBytes, requires: requires, renderKind: try row.decode("kind_summary"),
            waitingFor: waiting, averageFps: average, framesRendered: max(0, rendered), waitsOn: waitsOn)
    }

    /// Why no live worker takes a job's waiting chunks, if the workers table says: none is live,
    /// none has the tags it requires, or none is of the kind that rendered its first chunks.
    private static func waitingReason(_ row: PostgresRow, requires: [String]) throws -> String? {
        let live: Int64 = try row.decode("live_workers")
        if live == 0 { return "no live worker" }
        if try row.decode("tagged_workers", as: Int64.self) == 0 {
            return "no worker has tags \(requires.joined(separator: ","))"
        }
        if try row.decode("able_workers", as: Int64.self) == 0 {
            let kind: String = try row.decode("kind_summary")
            return "no live worker of the kind that renders it (\(kind)); a job never mixes kinds "
                + "(farm workers lists them)"
        }
        return nil
    }

    /// A tag array read as `array_to_string(…, ',')`: tags hold no commas (`PoolTags`).
    private static func tagList(_ row: PostgresRow, _ column: String) throws -> [String] {
        try row.decode(column, as: String.self).split(separator: ",").map(String.init)
    }

    private static func coordinatorLiveness(_ row: PostgresRow, now: Double) throws -> CoordinatorLiveness {
        CoordinatorLiveness(
            lastSeen: try row.decode("coordinator_seen"), running: try row.decode("coordinator_running"), now: now)
    }

    /// A missing coordinator, then a data folder it cannot write, in one line.
    private static func farmWarning(_ row: PostgresRow, now: Double) throws -> String? {
        let liveness = try coordinatorLiveness(row, now: now)
        let warnings = [liveness.warning, try row.decode("data_folder_problem", as: String?.self)].compactMap { $0 }
        return warnings.isEmpty ? nil : warnings.joined(separator: "; ")
    }

    /// Seconds since 1970 as ISO 8601 in UTC.
    public static func timestamp(_ epoch: Double?) -> String? {
        epoch.map { Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date(timeIntervalSince1970: $0)) }
    }
}
