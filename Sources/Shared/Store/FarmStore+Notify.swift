import FarmCore
import FarmPostgres
import Foundation

/// Telling a job's `notify` URL that it ended (migration 13): which notices are due, claimed for
/// a minute so that no other coordinator sends the same one meanwhile, and what came of them.
public struct DueNotice: Sendable, Equatable {
    public var job: Int64
    public var url: String
    /// Deliveries tried before this one.
    public var attempts: Int
}

extension FarmStore {
    /// The farm's secret that signs notices (`farm tokens notify-secret` prints it).
    public func notifySecret() throws -> String { try secret("notify", step: 13) }

    /// The farm's secret that signs links to outputs (step 25), never given to anyone.
    public func linkSecret() throws -> String { try secret("links", step: 25) }

    /// The secret `name` of `farm_secrets`, which schema step `step` made.
    private func secret(_ name: String, step: Int) throws -> String {
        guard let row = try connection.query("SELECT value FROM farm_secrets WHERE name = $1", [name]).first else {
            throw PostgresError(message: "the farm has no \(name) secret (migration \(step) missing)", state: nil)
        }
        return try row.decode("value")
    }

    /// Up to `limit` notices due now, each claimed for `leaseSeconds`.
    public func claimDueNotices(limit: Int = 20, leaseSeconds: Double = 60) throws -> [DueNotice] {
        try connection.query(
            """
            UPDATE jobs SET notify_next_at = now() + $2 * interval '1 second'
            WHERE id IN (
                SELECT id FROM jobs
                WHERE notify_url IS NOT NULL AND notified_at IS NULL AND notify_next_at IS NOT NULL
                  AND notify_next_at <= now()
                ORDER BY notify_next_at LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING id, notify_url, notify_attempts
            """, [String(limit), String(leaseSeconds)]
        ).map { row in
            DueNotice(
                job: try row.decode("id"), url: try row.decode("notify_url"),
                attempts: try row.decode("notify_attempts"))
        }
    }

    /// The receiver took the notice.
    public func recordNoticeDelivered(job: Int64) throws {
        try connection.query(
            "UPDATE jobs SET notified_at = now(), notify_next_at = NULL, notify_error = NULL WHERE id = $1",
            [String(job)])
    }

    /// A delivery failed: tried again after `retryIn` seconds, or never (nil) — the reason kept.
    public func recordNoticeFailed(job: Int64, error: String, retryIn: Double?) throws {
        try connection.query(
            """
            UPDATE jobs SET notify_attempts = notify_attempts + 1, notify_error = $2,
                notify_next_at = CASE WHEN $3::float8 IS NULL THEN NULL
                                      ELSE now() + $3::float8 * interval '1 second' END
            WHERE id = $1
            """, [String(job), error, retryIn.map { String($0) }])
    }
}

extension JobSubmission {
    /// Why `url` cannot be a job's notify URL, or nil when it can: an absolute http or https
    /// URL with a host.
    public static func notifyProblem(_ url: String) -> String? {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = parsed.host, !host.isEmpty
        else { return "\"\(url)\" is not an http:// or https:// URL" }
        return nil
    }
}
