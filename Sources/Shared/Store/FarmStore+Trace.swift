import FarmCore
import FarmPostgres
import Foundation

extension FarmStore {
    /// The coordinator's instants of one accepted attempt (`Migrations.trace`).
    public struct AttemptInstants: Sendable {
        public var sent: Date?
        public var received: Date?
        public var renderStarted: Date?
        public var rendered: Date?
        public var uploaded: Date
        public var verified: Date
        public var accepted: Date

        /// Places the worker's `phases` back from `uploaded`, when its `done` arrived.
        public init(
            sent: Date?, phases: (queued: Double, rendering: Double, uploading: Double)?, uploaded: Date,
            verified: Date, accepted: Date
        ) {
            self.sent = sent
            self.uploaded = uploaded
            self.verified = verified
            self.accepted = accepted
            if let phases {
                let rendered = uploaded.addingTimeInterval(-phases.uploading)
                let renderStarted = rendered.addingTimeInterval(-phases.rendering)
                // Never before it was sent: a span rounded on the worker cannot make time run back.
                var received = renderStarted.addingTimeInterval(-phases.queued)
                if let sent, received < sent { received = sent }
                (self.rendered, self.renderStarted, self.received) = (rendered, max(renderStarted, received), received)
            }
        }

        /// The columns the instants fill, in `values` order.
        static let columns = [
            "sent_at", "received_at", "render_started_at", "rendered_at", "uploaded_at", "verified_at", "accepted_at",
        ]

        /// `column = to_timestamp($n)` for each column, numbered from `first`: an UPDATE's SET list.
        static func assignments(from first: Int) -> String {
            columns.enumerated().map { "\($1) = to_timestamp($\(first + $0)::double precision)" }
                .joined(separator: ", ")
        }

        /// Seconds since 1970 as text, NULL where an instant (or all of them) is missing.
        static func values(_ instants: AttemptInstants?) -> [String?] {
            let dates: [Date?] =
                instants.map {
                    [$0.sent, $0.received, $0.renderStarted, $0.rendered, $0.uploaded, $0.verified, $0.accepted]
                } ?? Array(repeating: nil, count: columns.count)
            return dates.map { $0.map { String($0.timeIntervalSince1970) } }
        }
    }

    /// Records when a job's join began, wrote its file and measured its QC report.
    public func recordJoinInstants(job: Int64, started: Date, joined: Date, checked: Date) throws {
        try connection.query(
            """
            UPDATE jobs SET join_started_at = to_timestamp($2::double precision),
                joined_at = to_timestamp($3::double precision), checked_at = to_timestamp($4::double precision)
            WHERE id = $1
            """,
            [
                String(job), String(started.timeIntervalSince1970), String(joined.timeIntervalSince1970),
                String(checked.timeIntervalSince1970),
            ])
    }

    /// Every attempt of a job with its instants, and the job's own (`farm trace`).
    public func trace(job: Int64) throws -> JobTrace? {
        // Instants as seconds since 1970, named as their columns.
        let seconds = { (table: String, columns: [String]) in
            columns.map { "extract(epoch FROM \(table).\($0))::double precision AS \($0)" }.joined(separator: ", ")
        }
        let jobInstants = ["submitted_at", "started_at", "join_started_at", "joined_at", "checked_at", "finished_at"]
        guard
            let row = try connection.query(
                """
                SELECT j.id, \(seconds("j", jobInstants)) FROM jobs j WHERE j.id = $1
                """, [String(job)]
            ).first
        else { return nil }
        let instant = { (name: String, row: PostgresRow) in try row.decode(name, as: Double?.self) }
        var trace = JobTrace(
            job: job, submitted: try instant("submitted_at", row) ?? 0, started: try instant("started_at", row),
            joinStarted: try instant("join_started_at", row), joined: try instant("joined_at", row),
            checked: try instant("checked_at", row), finished: try instant("finished_at", row))
        let attemptInstants = ["started_at"] + AttemptInstants.columns + ["finished_at"]
        let rows = try connection.query(
            """
            SELECT c.kind, c.idx, a.attempt, a.worker_id, a.outcome, \(seconds("a", attemptInstants))
            FROM attempts a JOIN chunks c ON c.id = a.chunk_id
            WHERE c.job_id = $1 ORDER BY a.started_at, a.id
            """, [String(job)])
        for row in rows {
            trace.attempts.append(
                JobTrace.Attempt(
                    kind: try row.decode("kind", as: ChunkKind.self), index: try row.decode("idx", as: Int.self),
                    attempt: try row.decode("attempt", as: Int.self),
                    worker: try row.decode("worker_id", as: String.self),
                    outcome: try row.decode("outcome", as: String.self),
                    claimed: try instant("started_at", row) ?? 0, sent: try instant("sent_at", row),
                    received: try instant("received_at", row), renderStarted: try instant("render_started_at", row),
                    rendered: try instant("rendered_at", row), uploaded: try instant("uploaded_at", row),
                    verified: try instant("verified_at", row), accepted: try instant("accepted_at", row),
                    ended: try instant("finished_at", row)))
        }
        return trace
    }
}
