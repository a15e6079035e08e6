import FarmCore
import FarmStore
import FarmWire
import Foundation
import TestSupport
import Testing

/// A farm with keys admits only workers whose public key it was given, and a worker is its key:
/// a peer cannot connect without an allowed key, nor speak under another worker's id.
@Suite(.serialized) struct WorkerKeyTests {
    @Test func onlyWorkersWithAllowedKeysJoinAndNoKeySpeaksForAnother() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let keys = dir.appendingPathComponent("keys")
            let allowed = dir.appendingPathComponent("allowed")
            let outsider = dir.appendingPathComponent("outsider")
            for name in ["coordinator", "w1", "w3"] {
                #expect(try runFarm(["keys", "generate", name, "--dir", keys.path]).status == 0)
            }
            #expect(try runFarm(["keys", "generate", "w2", "--dir", outsider.path]).status == 0)
            let attributes = try FileManager.default.attributesOfItem(
                atPath: keys.appendingPathComponent("w1.key").path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
            for name in ["w1", "w3"] {
                try FileManager.default.copyItem(
                    at: keys.appendingPathComponent("\(name).pub"), to: allowed.appendingPathComponent("\(name).pub"))
            }

            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            farm.coordinator = try FarmProcess(
                "farm",
                [
                    "serve", "--database", farm.database, "--bind", farm.endpoint, "--data",
                    dir.appendingPathComponent("data").path, "--output-root", dir.path, "--lease-seconds", "3",
                    "--key", keys.appendingPathComponent("coordinator.key").path, "--allowed-workers", allowed.path,
                ], log: dir.appendingPathComponent("coordinator.log"))
            func worker(_ id: String, keyFolder: URL) throws -> FarmProcess {
                let process = try FarmProcess(
                    "farm-worker",
                    [
                        "--coordinator", farm.endpoint, "--id", id, "--scratch",
                        dir.appendingPathComponent("scratch-\(id)").path,
                        "--key", keyFolder.appendingPathComponent("\(id).key").path, "--coordinator-key",
                        keys.appendingPathComponent("coordinator.pub").path,
                    ], log: dir.appendingPathComponent("worker-\(id).log"))
                farm.workers.append(process)
                return process
            }
            // The outsider starts first: it is never let in, so the allowed worker renders it all.
            _ = try worker("w2", keyFolder: outsider)
            try farm.wait("the outsider's refusal", timeout: 30) {
                farm.coordinator!.output.contains("refused a connection from")
            }
            _ = try worker("w1", keyFolder: keys)
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            #expect(try farm.finish(job, timeout: 60).state == .done, "\(farm.logs)")
            let workers = Set(try farm.attempts(job).map(\.worker))
            #expect(workers == ["w1"], "\(workers)")
            #expect(try farm.store.connection.query("SELECT 1 FROM workers WHERE id = 'w2'").isEmpty)

            // An allowed key (w3's) connecting under w1's id: everything it says is dropped.
            let forger = try MessageSocket(.dealer, identity: "w1")
            try forger.useCurve(
                try CurveKeys.load(keys.appendingPathComponent("w3.key")),
                server: try CurveKeys.loadPublic(keys.appendingPathComponent("coordinator.pub")))
            try forger.connect(farm.endpoint)
            let info = WorkerInfo(id: "w1", host: "forger", cores: 1, slots: 1, version: FarmVersion.current)
            try forger.send(WireMessage.hello(info).encoded())
            let key = AttemptKey(chunk: 1, attempt: 1)
            try forger.send(WireMessage.piece(UploadPiece(key: key, offset: 0, total: 4), [1, 2, 3, 4]).encoded())
            try farm.wait("the forgery to be dropped", timeout: 30) {
                farm.coordinator!.output.contains(#"dropped a message: worker id "w1" does not belong to key "w3""#)
            }
            #expect(
                try farm.store.connection.query("SELECT host FROM workers WHERE id = 'w1'").first?.string(0) != "forger"
            )
            #expect(try farm.store.chunk(1)?.attempt == 1)
        }
    }

    /// w3 holds an admitted key and attacks w1's running attempt: under its own id it reports
    /// progress on it and fails it three times (once enough to fail the job); under the
    /// routing id "w1" it tries to take w1's route. w1 renders the job to the end, unharmed.
    @Test func anAdmittedKeyCannotFailReportOnOrTakeTheRouteOfAnotherWorkersAttempt() throws {
        try withTemporaryDirectory { dir in
            let (project, reference) = try FarmRecoveryTests.slowProject(in: dir)
            let keys = dir.appendingPathComponent("keys")
            for name in ["coordinator", "w1", "w3"] {
                #expect(try runFarm(["keys", "generate", name, "--dir", keys.path]).status == 0)
            }
            let allowed = dir.appendingPathComponent("allowed")
            try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
            for name in ["w1", "w3"] {
                try FileManager.default.copyItem(
                    at: keys.appendingPathComponent("\(name).pub"), to: allowed.appendingPathComponent("\(name).pub"))
            }
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let coordinatorPublic = keys.appendingPathComponent("coordinator.pub").path
            try farm.startCoordinator(arguments: [
                "--key", keys.appendingPathComponent("coordinator.key").path, "--allowed-workers", allowed.path,
            ])
            try farm.startWorker(
                "w1",
                arguments: [
                    "--key", keys.appendingPathComponent("w1.key").path, "--coordinator-key", coordinatorPublic,
                ])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "30"])
            var target: AttemptKey?
            try farm.wait("w1 mid-chunk") {
                let rows = try farm.store.connection.query(
                    """
                    SELECT a.chunk_id, a.attempt FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE c.job_id = $1 AND c.kind = 'video' AND a.worker_id = 'w1' AND a.outcome = 'running'
                    """, [String(job)])
                target = rows.first.map { AttemptKey(chunk: $0.int(0), attempt: Int($0.int(1))) }
                return target != nil
            }
            let key = try #require(target)
            let w3Keys = try CurveKeys.load(keys.appendingPathComponent("w3.key"))
            let server = try CurveKeys.loadPublic(URL(fileURLWithPath: coordinatorPublic))

            let attacker = try MessageSocket(.dealer)
            try attacker.useCurve(w3Keys, server: server)
            try attacker.connect(farm.endpoint)
            let info = WorkerInfo(id: "w3", host: "attacker", cores: 1, slots: 0, version: FarmVersion.current)
            try attacker.send(WireMessage.hello(info).encoded())
            try attacker.send(WireMessage.progress(ProgressReport(key: key, frames: 99_999, fps: 1)).encoded())
            for _ in 0..<3 {
                try attacker.send(WireMessage.failed(ChunkFailed(key: key, error: "w3 says so")).encoded())
            }
            try attacker.send(WireMessage.hello(info).encoded())
            try HostilePeerTests.awaitWelcomes(2, on: attacker)
            let live = try farm.store.connection.query(
                "SELECT frames_done, outcome FROM attempts WHERE chunk_id = $1 AND attempt = $2",
                [String(key.chunk), String(key.attempt)])
            #expect(live.first.map { $0.int(0) < 99_999 && $0.string(1) != "failed" } == true, "\(live)")

            // The route attack: connect under routing id "w1" and speak, as w3 and as "w1".
            let squatter = try MessageSocket(.dealer, identity: "w1")
            try squatter.useCurve(w3Keys, server: server)
            try squatter.connect(farm.endpoint)
            try squatter.send(WireMessage.hello(info).encoded())
            let forged = WorkerInfo(id: "w1", host: "squatter", cores: 1, slots: 1, version: FarmVersion.current)
            try squatter.send(
                WireMessage.heartbeat(Heartbeat(worker: forged, running: [key], waiting: [], uploading: [])).encoded())

            let record = try farm.finish(job, timeout: 120)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
            #expect(try frameHashes(output) == reference)
            let attempts = try farm.attempts(job)
            #expect(attempts.allSatisfy { $0.worker == "w1" && $0.outcome == "done" && $0.attempt == 1 }, "\(attempts)")
            let coordinatorLog = farm.coordinator!.output
            #expect(coordinatorLog.contains("dropped failed for \(key) from w3, which does not hold it"))
            #expect(coordinatorLog.contains("dropped progress for \(key) from w3, which does not hold it"))
            #expect(coordinatorLog.contains(#"dropped a message: worker id "w1" does not belong to key "w3""#))
            #expect(!coordinatorLog.contains("worker w1 went silent"), "\(coordinatorLog)")
            #expect(!farm.workers[0].output.contains("coordinator unreachable"), "\(farm.workers[0].output)")
        }
    }

    @Test func withoutKeysAWildcardBindListensOnLoopbackOnly() throws {
        try withTemporaryDirectory { dir in
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator(bind: "tcp://*:\(farm.port)")
            try farm.wait("the coordinator to listen", timeout: 30) {
                farm.coordinator!.output.contains("coordinator listening on")
            }
            let log = farm.coordinator!.output
            #expect(log.contains("no --key: listening on tcp://127.0.0.1:\(farm.port) only"), "\(log)")
            #expect(log.contains("coordinator listening on tcp://127.0.0.1:\(farm.port)"), "\(log)")
        }
    }
}
