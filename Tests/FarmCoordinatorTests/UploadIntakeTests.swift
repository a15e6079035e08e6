import FarmCoordinator
import FarmCore
import FarmPostgres
import FarmRender
import FarmStore
import FarmWire
import Foundation
import Logging
import TestSupport
import Testing

/// Upload intake's rules, turned by hand: pieces into files, resends, stale attempts, a full
/// disk, checksums and verdicts. The database is a real PostgreSQL (the fence is SQL, and a fake
/// of it would test the fake); the socket and the segment verifier are fakes, so no process runs.
@Suite struct UploadIntakeTests {
    /// A verifier that answers as told, and counts what it was asked.
    final class ScriptedCheck: SegmentChecking {
        var answer: Error?
        private(set) var checked: [URL] = []
        /// How many times the intake readied it (on its verifier thread).
        let prepared = Locked(0)

        func prepare() { prepared.withLock { $0 += 1 } }

        func verify(_ url: URL, chunk: ChunkRecord, job: JobRecord) throws {
            checked.append(url)
            if let answer { throw answer }
        }
    }

    struct Farm {
        let store: FarmStore
        let job: Int64
        let sent: SentMessages
        let sessions: WorkerSessions
        let intake: UploadIntake
        let check: ScriptedCheck
        let data: URL
        let route = Array("route-w1".utf8)

        /// The first attempt the worker was assigned.
        func assigned() throws -> AttemptKey { try #require(sent.assignments(to: route).first) }

        /// What `farm status` shows about the data folder.
        func dataFolderProblem() throws -> String? {
            try store.connection.query("SELECT data_folder_problem FROM farm_identity")[0].decode(
                "data_folder_problem", as: String?.self)
        }

        func acks() -> [Int64] {
            sent.sent.compactMap { entry in
                guard entry.route == route, case .pieceAck(let ack) = entry.message else { return nil }
                return ack.received
            }
        }

        func verdicts() -> [String] {
            sent.sent.compactMap { entry in
                switch entry.message {
                case .accepted(let verdict): return "accepted: \(verdict.reason)"
                case .rejected(let verdict): return "rejected: \(verdict.reason)"
                default: return nil
                }
            }
        }

        /// Waits for the verifier thread's verdict and acts on it.
        func collect() throws -> Set<Int64> {
            for _ in 0..<500 where intake.isBusy {
                let accepted = try intake.collectVerified()
                if !accepted.isEmpty || !intake.isBusy { return accepted }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return try intake.collectVerified()
        }
    }

    /// A private PostgreSQL, one job of one video chunk and one audio block, and worker w1
    /// assigned its first chunk.
    static func withFarm(_ body: (Farm) throws -> Void) throws {
        try withJobInPrivateDatabase(chunks: 1) { dir, _, store, job in
            let sent = SentMessages()
            let logger = Logger(label: "test")
            let sessions = WorkerSessions(store: store, outbox: sent, logger: logger, leaseSeconds: 60)
            let check = ScriptedCheck()
            let data = dir.appendingPathComponent("data")
            let intake = UploadIntake(
                store: store, outbox: sent, sessions: sessions, logger: logger, dataDirectory: data, check: check)
            let farm = Farm(
                store: store, job: job, sent: sent, sessions: sessions, intake: intake, check: check, data: data)
            try sessions.hello(
                WorkerInfo(id: "w1", host: "host", cores: 2, slots: 1, version: FarmVersion.current), from: farm.route)
            try sessions.assignIfPending()
            try body(farm)
        }
    }

    static let segment = (0..<3000).map { UInt8($0 % 251) }

    static func done(_ key: AttemptKey, bytes: [UInt8] = segment) -> ChunkDone {
        let hasher = SHA256()
        hasher.update(bytes)
        return ChunkDone(key: key, bytes: Int64(bytes.count), sha256: hasher.finish(), made: .frames(30, fps: 30))
    }

    /// The first upload's check must not wait for the verifier's process to start.
    @Test func theVerifierIsReadiedBeforeAnyUploadArrives() throws {
        try Self.withFarm { farm in
            for _ in 0..<500 where farm.check.prepared.current == 0 { Thread.sleep(forTimeInterval: 0.01) }
            #expect(farm.check.prepared.current == 1)
            #expect(farm.check.checked.isEmpty)
        }
    }

    @Test func piecesInOrderAreAcknowledgedAndAGapAsksFromWhereTheFileEnds() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            let total = Int64(Self.segment.count)
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: total), bytes: Array(Self.segment[..<1000]), from: farm.route)
            // A piece past the end (one was lost): nothing written, the worker told where to go on.
            try farm.intake.piece(
                UploadPiece(key: key, offset: 2000, total: total), bytes: Array(Self.segment[2000...]),
                from: farm.route)
            try farm.intake.piece(
                UploadPiece(key: key, offset: 1000, total: total), bytes: Array(Self.segment[1000..<2000]),
                from: farm.route)
            #expect(farm.acks() == [1000, 1000, 2000])
            let file = farm.intake.folder(farm.job).upload(key)
            #expect(try Data(contentsOf: file) == Data(Self.segment[..<2000]))
        }
    }

    @Test func aPieceFromAWorkerThatDoesNotHoldTheAttemptIsIgnored() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: 10), bytes: Array(repeating: 1, count: 10),
                from: Array("route-intruder".utf8))
            #expect(farm.sent.sent.filter { $0.route == Array("route-intruder".utf8) }.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: farm.intake.folder(farm.job).upload(key).path))
        }
    }

    @Test func aWholeUploadIsVerifiedThenAcceptedBehindTheFence() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            // The first claim may be the audio block or the video chunk.
            let claimed = try #require(try farm.store.current(key))
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: Int64(Self.segment.count)), bytes: Self.segment,
                from: farm.route)
            try farm.intake.done(Self.done(key), from: farm.route)
            #expect(farm.intake.isBusy)
            #expect(try farm.collect() == [farm.job])
            #expect(farm.check.checked.count == 1)
            #expect(farm.verdicts() == ["accepted: accepted"])
            #expect(try farm.store.isAccepted(key))
            let result = farm.intake.folder(farm.job).result(of: claimed.work)
            #expect(try Data(contentsOf: result) == Data(Self.segment))
            // The same `done` again, for an attempt its acceptance released, is not checked again.
            try farm.intake.done(Self.done(key), from: farm.route)
            #expect(farm.verdicts() == ["accepted: accepted"])
            #expect(farm.check.checked.count == 1)
        }
    }

    /// The database goes away after the accepted file was put in place (at the segment cache's
    /// row): the verdict is taken up again when it is back, and finds its file where it put it.
    @Test func aVerdictTakenUpAgainAfterTheDatabaseWentAwayFindsItsFileInPlace() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            let claimed = try #require(try farm.store.current(key))
            // The chunk has a key in the segment cache, whose first row the database refuses (a
            // sequence counts the tries: it is not rolled back with the refusal).
            try farm.store.connection.run(
                script: """
                    UPDATE chunks SET content_key = 'key-1' WHERE id = \(key.chunk);
                    CREATE SEQUENCE cache_rows;
                    CREATE FUNCTION refuse_first() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF nextval('cache_rows') = 1 THEN RAISE EXCEPTION 'the database went away'; END IF;
                        RETURN NEW;
                    END $$;
                    CREATE TRIGGER refuse_first BEFORE INSERT ON segment_cache
                        FOR EACH ROW EXECUTE FUNCTION refuse_first();
                    """)
            let keyed = try #require(try farm.store.current(key))
            #expect(keyed.contentKey == "key-1")
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: Int64(Self.segment.count)), bytes: Self.segment,
                from: farm.route)
            try farm.intake.done(Self.done(key), from: farm.route)
            #expect(throws: PostgresError.self) { try farm.collect() }
            let result = farm.intake.folder(farm.job).result(of: claimed.work)
            #expect(try Data(contentsOf: result) == Data(Self.segment))
            #expect(farm.verdicts().isEmpty)
            #expect(try farm.collect() == [farm.job])
            #expect(farm.verdicts() == ["accepted: accepted"])
            #expect(try farm.store.isAccepted(key))
            #expect(try Data(contentsOf: result) == Data(Self.segment))
        }
    }

    @Test func aChecksumThatDoesNotMatchAsksForTheWholeFileAgain() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: Int64(Self.segment.count)), bytes: Self.segment,
                from: farm.route)
            var damaged = Self.segment
            damaged[5] ^= 0xff
            try farm.intake.done(Self.done(key, bytes: damaged), from: farm.route)
            #expect(!farm.intake.isBusy)
            #expect(farm.acks().last == 0)
            #expect(farm.check.checked.isEmpty)
            #expect(try !farm.store.isAccepted(key))
        }
    }

    @Test func aBadSegmentFailsItsAttemptAndAVerifierThatCannotRunGivesNoVerdict() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            let upload = { () throws in
                try farm.intake.piece(
                    UploadPiece(key: key, offset: 0, total: Int64(Self.segment.count)), bytes: Self.segment,
                    from: farm.route)
                try farm.intake.done(Self.done(key), from: farm.route)
            }
            farm.check.answer = SegmentCheckUnavailable(description: "the verifier cannot start")
            try upload()
            #expect(try farm.collect().isEmpty)
            #expect(farm.verdicts().isEmpty)
            #expect(try farm.store.current(key) != nil, "still the current attempt: checked again on the next report")

            farm.check.answer = SegmentVerifier.Failure(description: "12 frames, expected 30")
            try upload()
            #expect(try farm.collect().isEmpty)
            #expect(farm.verdicts() == ["rejected: segment failed verification: 12 frames, expected 30"])
            #expect(try farm.store.current(key) == nil)
            #expect(try !farm.store.isAccepted(key))
        }
    }

    @Test func aFullDataFolderHoldsTheAcknowledgementAndSaysSo() throws {
        try Self.withFarm { farm in
            let key = try farm.assigned()
            // The job's folder is a file: every write under it fails, as on a full disk.
            try FileManager.default.createDirectory(
                at: farm.data.appendingPathComponent("jobs"), withIntermediateDirectories: true)
            try Data().write(to: farm.intake.folder(farm.job).url)
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: 10), bytes: Array(repeating: 1, count: 10), from: farm.route)
            #expect(farm.acks().isEmpty, "no answer: the worker sends the piece again after its patience")
            let problem = try #require(try farm.dataFolderProblem())
            #expect(problem.contains("cannot write in its data folder"))
            #expect(
                problem.contains("mkdir \(farm.intake.folder(farm.job).url.appendingPathComponent("incoming").path)"))

            try FileManager.default.removeItem(at: farm.intake.folder(farm.job).url)
            try farm.intake.piece(
                UploadPiece(key: key, offset: 0, total: 10), bytes: Array(repeating: 1, count: 10), from: farm.route)
            #expect(farm.acks() == [10])
            #expect(try farm.dataFolderProblem() == nil)
        }
    }
}
