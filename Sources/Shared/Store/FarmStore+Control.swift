import FarmCore

/// What operators do to jobs and workers. Each change is one transaction with the job row
/// locked, and wakes watchers through `NOTIFY farm`; the coordinator acts on it within a tick.
extension FarmStore {
    /// Stops a job for good: the coordinator tells its workers to drop its chunks and never
    /// joins it, so no output is written.
    public func cancel(job id: Int64) throws -> JobRecord {
        try changeUnfinishedJob(id, verb: "cancel") {
            try connection.query("UPDATE jobs SET state = 'cancelled', finished_at = now() WHERE id = $1", [String(id)])
        }
    }

    /// Pausing keeps the job's chunks from being assigned; chunks already rendering finish.
    public func setPaused(job id: Int64, _ paused: Bool) throws -> JobRecord {
        try changeUnfinishedJob(id, verb: paused ? "pause" : "resume") {
            try connection.query("UPDATE jobs SET paused = $2 WHERE id = $1", [String(id), paused ? "true" : "false"])
        }
    }

    /// Higher priorities are assigned first; equal ones in submission order.
    public func setPriority(job id: Int64, _ priority: Int) throws -> JobRecord {
        try changeUnfinishedJob(id, verb: "reprioritise") {
            try connection.query("UPDATE jobs SET priority = $2 WHERE id = $1", [String(id), String(priority)])
        }
    }

    /// Sends a failed or cancelled job back to the queue: its unfinished chunks get a fresh set
    /// of tries. Returns the job and how many chunks will render.
    ///
    /// `media` is each asset's stamp now: changed files are pinned again (`repin`).
    public func retry(job id: Int64, media: [String: FileStamp] = [:]) throws -> (
        job: JobRecord, chunks: Int, repinned: [String]
    ) {
        try connection.transaction {
            let job = try lockedJob(id)
            guard job.state == .failed || job.state == .cancelled else {
                throw FarmControlError.conflict(
                    job.state == .done
                        ? "job \(id) is done; nothing failed (use --chunk N to render one chunk again)"
                        : "job \(id) is \(job.state.rawValue); its failed chunks are retried by themselves")
            }
            let chunks = try connection.query(
                "UPDATE chunks SET failures_from = attempt WHERE job_id = $1 AND state <> 'done' RETURNING id",
                [String(id)])
            let repinned = try repin(job: id, to: media)
            try reopen(id)
            return (try lockedJob(id), chunks.count, repinned)
        }
    }

    /// Renders one video chunk again and joins the job's file anew. Any job state but a chunk
    /// that is rendering right now, and a failed or cancelled job with other chunks unrendered
    /// (reopened, it would render them all: `retry(job:)` is that).
    /// `media` as for `retry(job:media:)`.
    public func retry(job id: Int64, chunk index: Int, media: [String: FileStamp] = [:]) throws -> (
        job: JobRecord, repinned: [String]
    ) {
        try connection.transaction {
            let job = try lockedJob(id)
            guard job.state != .joining else {
                throw FarmControlError.conflict(
                    "job \(id) is being joined into its file; retry the chunk once it is done")
            }
            guard
                let chunk = try connection.query(
                    "SELECT \(ChunkRecord.columns) FROM chunks "
                        + "WHERE job_id = $1 AND kind = 'video' AND idx = $2 FOR UPDATE",
                    [String(id), String(index)]
                ).first.map(ChunkRecord.init(row:))
            else { throw FarmControlError.noSuchChunk(job: id, index: index) }
            guard chunk.state != .running else {
                throw FarmControlError.conflict(
                    "chunk \(index) of job \(id) is rendering now "
                        + "(attempt \(chunk.attempt) on \(chunk.worker ?? "a worker")); retry it when it ends"
                )
            }
            if job.state == .failed || job.state == .cancelled {
                // Reopened for one chunk, an ended job would render every chunk it left
                // unrendered too: say so, and let the operator ask for that.
                let others = try connection.query(
                    "SELECT count(*) FROM chunks WHERE job_id = $1 AND state <> 'done' AND id <> $2",
                    [String(id), String(chunk.id)])[0].decode("count", as: Int64.self)
                guard others == 0 else {
                    throw FarmControlError.conflict(
                        "job \(id) is \(job.state.rawValue) with \(others) other chunk(s) and audio block(s) "
                            + "unrendered; `farm retry \(id)` renders them all, chunk \(index) among them")
                }
            }
            try requeueWithFreshTries(job: id, kind: .video, index: index)
            let repinned = try repin(job: id, to: media)
            try reopen(id)
            return (try lockedJob(id), repinned)
        }
    }

    /// Keeps a worker from taking new chunks (`draining`), or lets it take them again.
    public func setDraining(worker id: String, _ draining: Bool) throws {
        let updated = try connection.query(
            "UPDATE workers SET draining = $2 WHERE id = $1 RETURNING id", [id, draining ? "true" : "false"])
        guard !updated.isEmpty else { throw FarmControlError.noSuchWorker(id, similar: try workers(like: id)) }
    }

    // MARK: Helpers

    /// Workers an operator may have meant by `id`: it with a host part (`render-01` for
    /// `render-01@vm`, a keyed worker's id), or its name part with another host.
    func workers(like id: String) throws -> [String] {
        let name = id.split(separator: "@", maxSplits: 1).first.map(String.init) ?? id
        return try connection.query(
            "SELECT id FROM workers WHERE split_part(id, '@', 1) = $1 AND id <> $2 ORDER BY id LIMIT 5", [name, id]
        ).map { try $0.decode("id", as: String.self) }
    }

    func lockedJob(_ id: Int64) throws -> JobRecord {
        guard
            let job = try connection.query(
                "SELECT \(JobRecord.columns) FROM jobs WHERE id = $1 FOR UPDATE", [String(id)]
            ).first
                .map(JobRecord.init(row:))
        else { throw FarmControlError.noSuchJob(id) }
        return job
    }

    private func changeUnfinishedJob(_ id: Int64, verb: String, _ change: () throws -> Void) throws -> JobRecord {
        try connection.transaction {
            let job = try lockedJob(id)
            guard !job.isFinished else {
                throw FarmControlError.conflict("job \(id) is \(job.state.rawValue); there is nothing to \(verb)")
            }
            try change()
            try notify(job: id)
            return try lockedJob(id)
        }
    }

    /// An ended job goes back to the queue, its clock restarted so its fps and ETA measure this
    /// run; a live one carries on and picks up the queued chunks.
    private func reopen(_ id: Int64) throws {
        try connection.query(
            """
            UPDATE jobs SET state = CASE WHEN state IN ('done', 'failed', 'cancelled') THEN 'queued' ELSE state END,
                            started_at = CASE WHEN state IN ('done', 'failed', 'cancelled') THEN NULL
                                              ELSE started_at END,
                            -- What is done already took no time in the run that starts now.
                            frames_kept = CASE WHEN state IN ('done', 'failed', 'cancelled')
                                               THEN (SELECT coalesce(sum(t.done_frames), 0) FROM chunk_tallies t
                                                     WHERE t.job_id = jobs.id)
                                               ELSE frames_kept END,
                            -- Its folder fills again: measured anew when the job ends.
                            segment_bytes = NULL, prune_requested = false, pruned_at = NULL,
                            error = NULL, finished_at = NULL
            WHERE id = $1
            """, [String(id)])
        try notify(job: id)
    }
}
