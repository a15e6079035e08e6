import FarmCore
import FarmPostgres

/// Counters and histograms of `/metrics` kept in the database (migration 14), so that they
/// survive a coordinator's restart and a standby that takes over counts on.
public enum FarmCounter: String, CaseIterable, Sendable {
    case leaseExpiries = "farm_lease_expiries_total"
    case failedAttempts = "farm_attempts_failed_total"
    case uploadBytes = "farm_upload_bytes_total"
    case samplesRendered = "farm_samples_rendered_total"
    /// Frames of accepted video chunks: what workers rendered (a chunk rendered again counts
    /// again; one taken from the segment cache does not).
    case framesRendered = "farm_frames_rendered_total"
    /// Video chunks and audio blocks done at submission from the segment cache.
    case chunksReused = "farm_chunks_reused_total"
}

public enum FarmHistogram: String, CaseIterable, Sendable {
    case verifySeconds = "farm_verify_seconds"
    case joinSeconds = "farm_join_seconds"

    /// Upper bounds of the buckets, from a small segment's check to a two-hour job's join.
    public static let buckets: [Double] = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
}

/// A histogram as Prometheus reads it: cumulative bucket counts, the sum and the count.
public struct HistogramValues: Sendable, Equatable {
    public var buckets: [(le: Double, count: Double)]
    public var sum: Double
    public var count: Double

    package init(buckets: [(le: Double, count: Double)], sum: Double, count: Double) {
        self.buckets = buckets
        self.sum = sum
        self.count = count
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.sum == b.sum && a.count == b.count && a.buckets.map(\.le) == b.buckets.map(\.le)
            && a.buckets.map(\.count) == b.buckets.map(\.count)
    }
}

extension FarmStore {
    public func count(_ counter: FarmCounter, by amount: Double = 1) throws {
        try count([(counter, amount)])
    }

    /// Adds to several counters in one statement.
    public func count(_ amounts: [(counter: FarmCounter, amount: Double)]) throws {
        let counted = amounts.filter { $0.amount != 0 }
        guard !counted.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO farm_counters (name, value)
            SELECT name, value::float8 FROM unnest($1::text[], $2::text[]) AS u(name, value)
            ON CONFLICT (name, le) DO UPDATE SET value = farm_counters.value + EXCLUDED.value
            """,
            [
                PostgresArray.text(counted.map(\.counter.rawValue)),
                PostgresArray.text(counted.map { String($0.amount) }),
            ])
    }

    /// Adds one observation: every bucket at or above it, the sum and the count, in one statement.
    public func observe(_ histogram: FarmHistogram, _ value: Double) throws {
        let bounds = FarmHistogram.buckets.filter { value <= $0 }.map { String($0) } + ["Infinity"]
        try connection.query(
            """
            INSERT INTO farm_counters (name, le, value)
            SELECT $1 || '_bucket', le::float8, 1::float8 FROM unnest($2::text[]) AS le
            UNION ALL SELECT $1 || '_sum', 'Infinity'::float8, $3::float8
            UNION ALL SELECT $1 || '_count', 'Infinity'::float8, 1::float8
            ON CONFLICT (name, le) DO UPDATE SET value = farm_counters.value + EXCLUDED.value
            """, [histogram.rawValue, PostgresArray.text(bounds), String(value)])
    }

    /// Every counter (0 when never counted) and histogram.
    public func counters() throws -> (counters: [FarmCounter: Double], histograms: [FarmHistogram: HistogramValues]) {
        var rows: [String: [(le: Double, value: Double)]] = [:]
        for row in try connection.query("SELECT name, le, value FROM farm_counters") {
            rows[try row.decode("name"), default: []].append((try row.decode("le"), try row.decode("value")))
        }
        var counters: [FarmCounter: Double] = [:]
        for counter in FarmCounter.allCases { counters[counter] = rows[counter.rawValue]?.first?.value ?? 0 }
        var histograms: [FarmHistogram: HistogramValues] = [:]
        for histogram in FarmHistogram.allCases {
            let stored = Dictionary(
                (rows[histogram.rawValue + "_bucket"] ?? []).map { ($0.le, $0.value) }, uniquingKeysWith: +)
            histograms[histogram] = HistogramValues(
                buckets: (FarmHistogram.buckets + [.infinity]).map { ($0, stored[$0] ?? 0) },
                sum: rows[histogram.rawValue + "_sum"]?.first?.value ?? 0,
                count: rows[histogram.rawValue + "_count"]?.first?.value ?? 0)
        }
        return (counters, histograms)
    }
}
