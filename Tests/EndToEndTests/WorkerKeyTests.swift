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
                farm.coordinator!.output.contains(#"dropped a message: connection id "w1" does not belong to key "w3""#)
            }
            #expect(
                try farm.store.connection.query("SELECT host FROM workers WHERE id = 'w1'").first?.string(0) != "forger"
            )
            #expect(try farm.store.chunk(1)?.attempt == 1)
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
