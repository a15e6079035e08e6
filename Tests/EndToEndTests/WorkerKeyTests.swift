import FarmCore
import FarmStore
import FarmWire
import Foundation
import TestSupport
import Testing

/// A farm with keys admits only workers whose public key it was given, and a worker is its key:
/// a peer cannot connect without an allowed key, nor speak under another worker's id.
@Suite(.serialized) struct WorkerKeyTests {
    /// Key pairs for `names` made by `farm keys generate` in DIR/keys, and the public keys of
    /// `allowing` copied to DIR/allowed, the coordinator's --allowed-workers folder.
    static func keys(_ names: [String], allowing: [String], in dir: URL) throws -> (keys: URL, allowed: URL) {
        let keys = dir.appendingPathComponent("keys")
        for name in names {
            #expect(try runFarm(["keys", "generate", name, "--dir", keys.path]).status == 0)
        }
        let allowed = dir.appendingPathComponent("allowed")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        for name in allowing {
            try FileManager.default.copyItem(
                at: keys.appendingPathComponent("\(name).pub"), to: allowed.appendingPathComponent("\(name).pub"))
        }
        return (keys, allowed)
    }

    @Test func onlyWorkersWithAllowedKeysJoinAndNoKeySpeaksForAnother() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let (keys, allowed) = try Self.keys(["coordinator", "w1", "w3"], allowing: ["w1", "w3"], in: dir)
            let outsider = dir.appendingPathComponent("outsider")
            #expect(try runFarm(["keys", "generate", "w2", "--dir", outsider.path]).status == 0)
            let attributes = try FileManager.default.attributesOfItem(
                atPath: keys.appendingPathComponent("w1.key").path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

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
                try farm.store.connection.query("SELECT host FROM workers WHERE id = 'w1'").first?.decode(
                    "host", as: String.self) != "forger"
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
            let (keys, allowed) = try Self.keys(["coordinator", "w1", "w3"], allowing: ["w1", "w3"], in: dir)
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
            let key = try farm.runningVideoAttempt(of: job, worker: "w1")
            let w3Keys = try CurveKeys.load(keys.appendingPathComponent("w3.key"))
            let server = try CurveKeys.loadPublic(URL(fileURLWithPath: coordinatorPublic))

            let attacker = try MessageSocket(.dealer)
            try attacker.useCurve(w3Keys, server: server)
            try attacker.connect(farm.endpoint)
            let info = WorkerInfo(id: "w3", host: "attacker", cores: 1, slots: 0, version: FarmVersion.current)
            try attacker.send(WireMessage.hello(info).encoded())
            try HostilePeerTests.reportOnAndFail(key, from: attacker, as: info, farm: farm)

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
            let label = try #require(try farm.store.chunk(key.chunk)).work.label(job: job, attempt: key.attempt)
            #expect(coordinatorLog.contains("dropped failed for \(label) from w3, which does not hold it"))
            #expect(coordinatorLog.contains("dropped progress for \(label) from w3, which does not hold it"))
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
