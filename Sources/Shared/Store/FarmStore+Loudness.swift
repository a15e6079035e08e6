import FarmCore
import FarmPostgres
import Foundation

/// A job's loudness target, in two passes (migration 20): its loudness rows measure the audio
/// blocks, the coordinator combines them into one gain, and only then do its audio rows go out.
extension FarmStore {
    /// Jobs whose loudness rows are all done while their audio is still held: their programme
    /// can be measured now. Among `jobs`, or all.
    public func jobsAwaitingGain(among jobs: [Int64]? = nil) throws -> [Int64] {
        try connection.query(
            """
            SELECT id FROM jobs j
            WHERE audio_held AND state IN ('queued', 'running')
              AND ($1::bigint[] IS NULL OR id = ANY($1::bigint[]))
              AND NOT EXISTS (SELECT 1 FROM chunks c
                              WHERE c.job_id = j.id AND c.kind = 'loudness' AND c.state <> 'done')
            ORDER BY id
            """, [jobs.map(PostgresArray.integers)]
        ).map { try $0.decode("id") }
    }

    /// A job's loudness rows (each an audio block's first pass), in order.
    public func loudnessBlocks(job: Int64) throws -> [AudioBlock] {
        try connection.query(
            "SELECT idx, start_sample, end_sample FROM chunks WHERE job_id = $1 AND kind = 'loudness' ORDER BY idx",
            [String(job)]
        ).map {
            AudioBlock(
                index: try $0.decode("idx"), start: try $0.decode("start_sample"), end: try $0.decode("end_sample"))
        }
    }

    /// Records the programme's figures and gain and lets its audio rows go; false when the
    /// job's audio was not held (already settled, or the job ended).
    @discardableResult
    public func settleGain(job: Int64, gain: ProgrammeGain, loudness: ProgrammeLoudness) throws -> Bool {
        try connection.transaction {
            let settled = try connection.query(
                """
                UPDATE jobs SET audio_gain = $2, loudness = $3, audio_held = false
                WHERE id = $1 AND audio_held RETURNING id
                """, [String(job), try JSONColumn.encode(gain), try JSONColumn.encode(loudness)])
            guard !settled.isEmpty else { return false }
            try notify(job: job)
            return true
        }
    }

    /// While a job's audio is held: the trial gain its loudness blocks measure at (nil in the
    /// first pass).
    public func trialGain(job: Int64) throws -> ProgrammeGain? {
        guard let row = try connection.query("SELECT audio_gain FROM jobs WHERE id = $1", [String(job)]).first,
            let gain: String = try row.decode("audio_gain")
        else { return nil }
        return try JSONColumn.decode(gain)
    }

    /// Sends every loudness block of a held job out again, to measure the sound through the
    /// limiter at `trial`.
    public func measureAgain(job: Int64, trial: ProgrammeGain, blocks: [Int]) throws {
        try connection.transaction {
            try connection.query(
                "UPDATE jobs SET audio_gain = $2 WHERE id = $1 AND audio_held",
                [String(job), try JSONColumn.encode(trial)])
            try requeue(job: job, chunks: blocks.map { (.loudness, $0) })
        }
    }

    /// The programme's figures its first pass measured, once settled.
    public func programmeLoudness(job: Int64) throws -> (loudness: ProgrammeLoudness, gain: ProgrammeGain)? {
        guard
            let row = try connection.query("SELECT loudness, audio_gain FROM jobs WHERE id = $1", [String(job)]).first,
            let loudness: String = try row.decode("loudness"), let gain: String = try row.decode("audio_gain")
        else { return nil }
        return (try JSONColumn.decode(loudness), try JSONColumn.decode(gain))
    }

    /// Inserts a loudness row per audio block and holds the job's audio until they are done.
    func insertLoudnessRows(job id: Int64, _ blocks: [AudioBlock]) throws {
        guard !blocks.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO chunks (job_id, kind, idx, start_sample, end_sample)
            SELECT $1, 'loudness', i, s, e FROM unnest($2::integer[], $3::bigint[], $4::bigint[]) AS u(i, s, e)
            """,
            [
                String(id), PostgresArray.integers(blocks.map(\.index)), PostgresArray.integers(blocks.map(\.start)),
                PostgresArray.integers(blocks.map(\.end)),
            ])
        try connection.query("UPDATE jobs SET audio_held = true WHERE id = $1", [String(id)])
    }
}

/// A value kept in a text column as JSON with sorted keys (media pins, gains, QC reports).
enum JSONColumn {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}

extension FarmStore {
    /// Keeps a job's QC report (`farm qc`).
    public func recordQC(job: Int64, _ report: QCReport) throws {
        try connection.query("UPDATE jobs SET qc = $2 WHERE id = $1", [String(job), try JSONColumn.encode(report)])
    }

    /// A job's QC report; nil before its join, or for a job joined before reports were kept.
    public func qc(job: Int64) throws -> QCReport? {
        guard let row = try connection.query("SELECT qc FROM jobs WHERE id = $1", [String(job)]).first,
            let text: String = try row.decode("qc")
        else { return nil }
        return try JSONColumn.decode(text)
    }
}
