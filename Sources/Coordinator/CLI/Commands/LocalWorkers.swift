import FarmCore
import FarmWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The worker processes of `farm render`'s own farm, with keys of their own for this render
/// only (no other process on the machine can join), reaching the coordinator at an endpoint
/// named before it binds: an abstract Unix socket of this process's, so the workers may start
/// while the database does and their hello waits in ZeroMQ's queue until the coordinator
/// listens.
final class LocalWorkers {
    /// Where the coordinator binds and the workers connect.
    let endpoint = "ipc://@farm-render-\(getpid())"
    /// The coordinator's key pair, and the folder of the workers' public keys it admits.
    let coordinatorKeys: CurveKeys
    let keys: URL
    let ids: [String]
    let logs: URL
    private var processes: [ChildProcess] = []

    /// Makes the keys and starts `count` workers, logging under `data`/logs unless `verbose`.
    init(count: Int, encoderThreads: Int, verbose: Bool, data: URL) throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("farm-worker")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw LocalFarm.Failure(description: "farm-worker is not installed beside farm (looked for \(binary.path))")
        }
        ids = (1...count).map { "local-\(getpid())-\($0)" }
        keys = data.appendingPathComponent("keys-\(getpid())")
        logs = data.appendingPathComponent("logs")
        coordinatorKeys = try CurveKeys.generate(name: "coordinator")
        do {
            try coordinatorKeys.write(to: keys.appendingPathComponent("coordinator"))
            for id in ids { try CurveKeys.generate(name: id).write(to: keys) }
            chmod(keys.path, 0o700)
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
            for (index, id) in ids.enumerated() {
                let argv = [
                    binary.path, "--coordinator", endpoint, "--id", id, "--threads", String(encoderThreads),
                    "--scratch", data.appendingPathComponent("scratch").appendingPathComponent(id).path,
                    "--key", keys.appendingPathComponent("\(id).key").path, "--coordinator-key",
                    keys.appendingPathComponent("coordinator/coordinator.pub").path,
                    // Killed, this command leaves no worker rendering for nobody.
                    "--parent", String(getpid()),
                ]
                let log = verbose ? nil : logs.appendingPathComponent("worker-\(index + 1).log")
                if let log { try? FileManager.default.removeItem(at: log) }
                processes.append(ChildProcess(pid: try Subprocess.spawn(argv, log: log)))
            }
        } catch {
            stop()
            throw error
        }
    }

    var allExited: Bool { processes.allSatisfy { !$0.isRunning } }

    /// SIGTERM, then SIGKILL for any worker still running after five seconds; their keys go.
    /// Again, it does nothing: a reaped worker is never signalled.
    func stop() {
        ChildProcess.stop(processes, grace: 5)
        try? FileManager.default.removeItem(at: keys)
    }
}
