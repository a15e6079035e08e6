import FarmCore

/// A job's frames per second over time, for the dashboard's plot: the frames of accepted video
/// chunks counted when they were accepted, in at most `buckets` equal spans from the job's first
/// assignment. Bounded output whatever the job's size: one grouped query, never every attempt.
public struct RenderRatePoint: Codable, Sendable, Equatable {
    /// Seconds from the first assignment to the end of this span.
    public var seconds: Double
    public var fps: Double
}

extension FarmStore {
    public func renderRate(job id: Int64, buckets: Int = 60) throws -> [RenderRatePoint] {
        guard try self.job(id) != nil else { throw FarmControlError.noSuchJob(id) }
        let rows = try connection.query(
            """
            WITH done AS (
                SELECT a.finished_at, a.frames_done FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                WHERE c.job_id = $1 AND c.kind = 'video' AND a.outcome = 'done'),
            first AS (
                SELECT min(a.started_at) AS at FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                WHERE c.job_id = $1),
            span AS (
                SELECT first.at AS first,
                       greatest(1, ceil(extract(epoch FROM (SELECT max(finished_at) FROM done) - first.at) / $2))
                           AS width
                FROM first)
            SELECT floor(extract(epoch FROM d.finished_at - s.first) / s.width) AS bucket, s.width,
                   sum(d.frames_done) AS frames
            FROM done d, span s GROUP BY 1, 2 ORDER BY 1
            """, [String(id), String(max(1, buckets))])
        guard let width = try rows.first?.decode("width", as: Double.self) else { return [] }
        var frames: [Int: Int64] = [:]
        for row in rows { frames[try row.decode("bucket")] = try row.decode("frames") }
        // Spans where nothing was accepted are zeros, so that the plot shows the pause.
        return (0...(frames.keys.max() ?? 0)).map { index in
            RenderRatePoint(seconds: Double(index + 1) * width, fps: Double(frames[index] ?? 0) / width)
        }
    }
}
