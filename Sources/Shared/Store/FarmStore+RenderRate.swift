import FarmCore

/// A job's frames per second over time, for the dashboard's plot, in at most `buckets` equal
/// spans from its first assignment to now: of this run, as its elapsed time is (a retry's plot
/// starts with the retry). Each attempt's frames are spread over the time it
/// rendered them (accepted ones from assignment to acceptance, running ones to now), so a job
/// rendering steadily plots as a steady line, not as spikes where chunks happened to be
/// accepted. Spans are a whole step of a fixed ladder (1 s, 2 s, 5 s, 10 s, …), so the plot's
/// shape and its peak change only when the ladder steps, not at every refresh. Bounded output
/// whatever the job's size: one grouped query.
public struct RenderRatePoint: Codable, Sendable, Equatable {
    /// Seconds from the first assignment to the end of this span.
    public var seconds: Double
    public var fps: Double
}

extension FarmStore {
    /// Span widths in seconds, smallest first.
    static let rateSteps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200]

    public func renderRate(job id: Int64, buckets: Int = 60) throws -> [RenderRatePoint] {
        guard try self.job(id) != nil else { throw FarmControlError.noSuchJob(id) }
        let spans = """
            WITH first AS (
                SELECT min(a.started_at) AS at FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                JOIN jobs j ON j.id = c.job_id
                WHERE c.job_id = $1 AND a.outcome <> 'reused' AND a.started_at >= j.started_at),
            -- An attempt lasts at least a millisecond: one accepted within less keeps its frames.
            spans AS (
                SELECT extract(epoch FROM a.started_at - f.at) AS s,
                       greatest(extract(epoch FROM coalesce(a.finished_at, now()) - f.at),
                                extract(epoch FROM a.started_at - f.at) + 0.001) AS e,
                       a.frames_done::double precision AS frames
                FROM attempts a JOIN chunks c ON c.id = a.chunk_id, first f
                WHERE c.job_id = $1 AND c.kind = 'video' AND a.outcome IN ('done', 'running') AND a.frames_done > 0
                  AND a.started_at >= f.at)
            """
        let length = try connection.query(spans + "SELECT max(e) AS length FROM spans", [String(id)])[0]
            .decode("length", as: Double?.self)
        guard let length, length > 0 else { return [] }
        let width = Self.rateSteps.first { $0 * Double(max(1, buckets)) >= length } ?? Self.rateSteps.last!
        let rows = try connection.query(
            spans + """
                SELECT i AS bucket,
                       sum(sp.frames * greatest(0, least(sp.e, (i + 1) * $2) - greatest(sp.s, i * $2))
                           / (sp.e - sp.s)) AS frames
                FROM spans sp
                CROSS JOIN LATERAL generate_series(
                    floor(sp.s / $2)::integer, greatest(floor(sp.s / $2)::integer, ceil(sp.e / $2)::integer - 1)) AS i
                GROUP BY i ORDER BY i
                """, [String(id), String(width)])
        var frames: [Int: Double] = [:]
        for row in rows { frames[try row.decode("bucket")] = try row.decode("frames") }
        // Spans where nothing rendered are zeros, so that the plot shows the pause.
        return (0...(frames.keys.max() ?? 0)).map { index in
            RenderRatePoint(seconds: Double(index + 1) * width, fps: (frames[index] ?? 0) / width)
        }
    }
}
