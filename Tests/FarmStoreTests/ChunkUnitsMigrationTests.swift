import FarmCore
import FarmPostgres
import FarmStore
import Foundation
import TestSupport
import Testing

/// Migration 18 moves audio blocks' samples out of the frame columns, on a database that is
/// rendering: a job submitted, claimed and half accepted by a farm of schema 17 goes on to the
/// end under this one, every span read in its own unit.
@Suite struct ChunkUnitsMigrationTests {
    /// A job of two video chunks (30 frames each) and two audio blocks (480,256 samples, then
    /// 95,744) written and claimed as schema 17 wrote them, one of each accepted.
    static func runningJobOfSchema17(_ connection: PostgresConnection) throws -> Int64 {
        try Migrations.apply(on: connection, upTo: 17)
        let job = try connection.query(
            """
            INSERT INTO jobs (name, project_file, project_text, media_root, output_path, container, fps, frame_count,
                              width, height, sample_rate)
            VALUES ('old', '/p.json', '{}', '/media', '/out/old.mp4', 'mp4', '30', 60, 64, 64, 48000) RETURNING id
            """)[0].decode("id", as: Int64.self)
        try connection.query(
            """
            INSERT INTO chunks (job_id, kind, idx, start_frame, end_frame) VALUES
                ($1, 'video', 0, 0, 30), ($1, 'video', 1, 30, 60),
                ($1, 'audio', 0, 0, 480256), ($1, 'audio', 1, 480256, 576000)
            """, [String(job)])
        try connection.query("INSERT INTO workers (id, host, cores, slots, version) VALUES ('w1', 'h', 4, 4, '0.5.0')")
        // What schema 17's claim wrote (the live claim reads columns of later steps).
        let claimed = try connection.query(
            """
            WITH taken AS (
                UPDATE chunks SET state = 'running', attempt = attempt + 1, worker_id = 'w1',
                                  lease_expires = now() + interval '600 seconds'
                WHERE job_id = $1 RETURNING id, attempt, kind, idx)
            INSERT INTO attempts (chunk_id, attempt, worker_id)
            SELECT id, attempt, 'w1' FROM taken ORDER BY kind = 'audio' DESC, idx RETURNING chunk_id
            """, [String(job)])
        #expect(claimed.count == 4)
        try connection.query(
            "UPDATE jobs SET state = 'running', started_at = now() WHERE id = $1", [String(job)])
        // What schema 17's accept wrote: an audio block's samples as frames, its samples per
        // second as fps.
        try connection.query(
            """
            WITH done AS (
                UPDATE chunks SET state = 'done', lease_expires = NULL
                WHERE job_id = $1 AND idx = 0 RETURNING id, kind, end_frame - start_frame AS length)
            UPDATE attempts a SET outcome = 'done', finished_at = now(), frames_done = d.length,
                                  fps = CASE WHEN d.kind = 'audio' THEN 550743.9 ELSE 12.5 END
            FROM done d WHERE a.chunk_id = d.id
            """, [String(job)])
        return job
    }

    @Test func aRunningJobIsUpgradedAndFinishesInItsUnits() throws {
        let url = try TestDatabase.create()
        let job = try Self.runningJobOfSchema17(PostgresConnection(url: url))
        let store = try FarmStore(url: url)

        // Every row holds its span in its own pair; the other pair is NULL.
        let rows = try store.connection.query(
            """
            SELECT c.kind, c.idx, c.start_frame, c.end_frame, c.start_sample, c.end_sample, a.frames_done,
                   a.samples_done, a.fps
            FROM chunks c JOIN attempts a ON a.chunk_id = c.id WHERE c.job_id = $1 ORDER BY c.kind, c.idx
            """, [String(job)])
        func columns(_ row: PostgresRow) throws -> [Int64?] {
            try ["start_frame", "end_frame", "start_sample", "end_sample", "frames_done", "samples_done"].map {
                try row.decode($0, as: Int64?.self)
            }
        }
        #expect(try columns(rows[0]) == [nil, nil, 0, 480_256, 0, 480_256])
        #expect(try rows[0].decode("fps", as: Double?.self) == nil)
        #expect(try columns(rows[1]) == [nil, nil, 480_256, 576_000, 0, 0])
        #expect(try columns(rows[2]) == [0, 30, nil, nil, 30, nil])
        #expect(try rows[2].decode("fps", as: Double?.self) == 12.5)
        #expect(try columns(rows[3]) == [30, 60, nil, nil, 0, nil])

        // The counts kept by the trigger (migration 9) did not move: frames are video's alone.
        var status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.chunks.running == 2 && status.chunks.done == 2)
        #expect(status.framesDone == 30)

        // The running attempts are leased as typed items and end as the new code ends them.
        let leased = try store.leased(to: ["w1"]).sorted { $0.key.chunk < $1.key.chunk }
        #expect(
            leased.map(\.work) == [
                .video(Chunk(index: 1, start: 30, end: 60)), .audio(AudioBlock(index: 1, start: 480_256, end: 576_000)),
            ])
        for claimed in leased {
            let made: WorkMade =
                switch claimed.work {
                case .video(let chunk): .frames(chunk.frameCount, fps: 10)
                case .audio(let block), .loudness(let block): .samples(block.sampleCount)
                }
            #expect(try store.accept(claimed.key, made: made))
        }
        status = try #require(try store.jobStatuses(id: job).first)
        #expect(status.chunks.done == 4 && status.framesDone == 60)
        let chunks = try store.jobDetail(job).chunks
        #expect(chunks.map(\.framesDone) == [nil, nil, 30, 30])
        #expect(chunks.map(\.samplesDone) == [480_256, 95_744, nil, nil])
        let seconds: [Double?] = [480_256 / 48_000, 95_744 / 48_000, nil, nil]
        #expect(chunks.map(\.soundSeconds) == seconds)
        #expect(try store.audioBlocks(job: job).map(\.samples) == [0..<480_256, 480_256..<576_000])
        #expect(try store.chunks(job: job).map(\.frames) == [0..<30, 30..<60])
        // Attempts in the order they were claimed: the audio blocks first.
        let log = try store.attemptLog(job: job)
        #expect(log.map(\.framesDone) == [nil, nil, 30, 30])
        #expect(log.map(\.samplesDone) == [480_256, 95_744, nil, nil])
        #expect(log.map(\.fps) == [nil, nil, 12.5, 10])
    }

    @Test func aSpanInTheOtherUnitsColumnsIsRefused() throws {
        let store = try FarmStore(url: TestDatabase.create())
        let job = try store.connection.query(
            """
            INSERT INTO jobs (name, project_file, project_text, media_root, output_path, container, fps, frame_count,
                              width, height)
            VALUES ('j', '/p.json', '{}', '/', '/o.mp4', 'mp4', '30', 30, 64, 64) RETURNING id
            """)[0].decode("id", as: Int64.self)
        #expect(throws: PostgresError.self) {
            try store.connection.query(
                "INSERT INTO chunks (job_id, kind, idx, start_frame, end_frame) VALUES ($1, 'audio', 0, 0, 48000)",
                [String(job)])
        }
        #expect(throws: PostgresError.self) {
            try store.connection.query(
                "INSERT INTO chunks (job_id, kind, idx, start_sample, end_sample) VALUES ($1, 'video', 0, 0, 30)",
                [String(job)])
        }
    }
}
