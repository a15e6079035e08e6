import FarmCoordinator
import FarmCore
import FarmHTTP
import FarmStore
import FarmWire
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A whole farm for one render: the database (private unless one is named), a coordinator on
/// a thread of this process, and worker processes on this machine, all stopped afterwards.
struct LocalFarm {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let database: DatabaseOptions
    /// The database, opening since the command began.
    let started: DatabaseStart
    let workers: Int
    let encoderThreads: Int
    let verbose: Bool
    /// Serve the dashboard and API on a free loopback port while it renders, and print where.
    let dashboard: Bool
    /// Ctrl-C or SIGTERM: the job is cancelled and everything above is stopped.
    let interruption: Interruption
    /// Plan again what the cache lacks so that it spreads over the workers
    /// (`JobSubmission.spreadUncached`): `farm render` when it chose the chunk length itself.
    var spreadsUncached = false

    /// Submits the job, follows it with `watch` (given the store, the job id and a check that
    /// throws when this farm breaks down), and returns what `watch` returns.
    func render<T>(
        _ submission: JobSubmission,
        watch: (FarmStore, Int64, @escaping () throws -> Void) throws -> T
    ) throws -> T {
        try render([submission]) { store, jobs, check in try watch(store, jobs[0], check) }
    }

    /// Submits the jobs in order (a batch's rows), follows them with `watch`, as above.
    func render<T>(
        _ submissions: [JobSubmission],
        watch: (FarmStore, [Int64], @escaping () throws -> Void) throws -> T
    ) throws -> T {
        SignalMask.unblockAll()
        FarmLogging.bootstrap(level: verbose ? .info : .error)
        let (url, server) = try started.wait()
        defer { server?.stop() }
        let store = try FarmStore(url: url)
        // A named database with the default data folder gets a folder of its own inside it: a
        // data folder belongs to one database (`DataFolderClaim`).
        var data = database.dataDirectory
        if database.namedDatabase != nil && !database.dataChosen {
            data = data.appendingPathComponent("farms").appendingPathComponent(try store.identity())
        }
        var configuration = CoordinatorServer.Configuration(database: url, dataDirectory: data)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.removeSegmentsWhenDone = true
        configuration.waitsForLeadership = false
        // Keys of its own, for this render only: no other process on the machine can join.
        let keys = data.appendingPathComponent("keys-\(getpid())")
        defer { try? FileManager.default.removeItem(at: keys) }
        let coordinatorKeys = try CurveKeys.generate(name: "coordinator")
        try coordinatorKeys.write(to: keys.appendingPathComponent("coordinator"))
        for number in 1...workers { try CurveKeys.generate(name: workerID(number)).write(to: keys) }
        chmod(keys.path, 0o700)
        configuration.keys = (coordinatorKeys, keys)
        let coordinator = try CoordinatorServer(configuration: configuration)
        let coordinatorDone = DispatchSemaphore(value: 0)
        let coordinatorError = Locked<Error?>(nil)
        let thread = Thread {
            do { try coordinator.run() } catch { coordinatorError.withLock { $0 = error } }
            coordinatorDone.signal()
        }
        thread.start()
        defer {
            coordinator.stop()
            coordinatorDone.wait()
        }
        let api = dashboard ? try serveDashboard(database: url, data: data, store: store) : nil
        defer { api?.stop() }
        let processes = try startWorkers(endpoint: coordinator.endpoint, data: data, keys: keys)
        defer {
            // The coordinator winds down while the workers do.
            coordinator.stop()
            stopWorkers(processes)
            // They lived for this render only; `farm workers` lists the farm's standing workers.
            try? store.forgetWorkers(processes.indices.map { workerID($0 + 1) })
        }

        // The coordinator records itself once it leads, which may come after the first look
        // at the job: say now that one serves, or the view would start with "no coordinator".
        try store.recordCoordinatorServing()
        var ids: [Int64] = []
        for var submission in submissions {
            if spreadsUncached && submission.useCache {
                submission.spreadUncached(
                    over: workers, cached: try store.cachedKeys(among: submission.videoKeys, kind: .video))
            }
            ids.append(try store.submit(submission))
        }
        do {
            return try watch(store, ids) {
                try interruption.check()
                if let error = coordinatorError.current { throw Failure(description: "coordinator stopped: \(error)") }
                if processes.allSatisfy({ !$0.isRunning }) {
                    throw Failure(
                        description: "every worker exited; see the logs in \(data.appendingPathComponent("logs").path)")
                }
            }
        } catch let interrupted as Interrupted {
            // Left queued, another coordinator of a named database would render it later.
            for id in ids { _ = try? store.cancel(job: id) }
            throw interrupted
        }
    }

    /// The dashboard of this render's farm: its address with a token of its own, printed once,
    /// revoked when the render ends.
    private func serveDashboard(database: String, data: URL, store: FarmStore) throws -> DashboardServer {
        let token = APIToken.generate()
        let name = "render-\(getpid())"
        _ = try store.revokeToken(name: name)
        try store.createToken(name: name, role: .operate, digest: APIToken.digest(of: token))
        let server = try FarmHTTPServer(
            database: database, host: "127.0.0.1", port: 0, mediaRoot: nil, dataDirectory: data,
            logger: Logger(label: "farm.http"))
        FileHandle.standardError.write(Data("dashboard: \(server.url)/#token=\(token)\n".utf8))
        return DashboardServer(server: server, store: store, token: name)
    }

    struct DashboardServer {
        let server: FarmHTTPServer
        let store: FarmStore
        let token: String

        func stop() {
            server.stop()
            _ = try? store.revokeToken(name: token)
        }
    }

    private func startWorkers(endpoint: String, data: URL, keys: URL) throws -> [ChildProcess] {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("farm-worker")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Failure(description: "farm-worker is not installed beside farm (looked for \(binary.path))")
        }
        let logs = data.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        var started: [ChildProcess] = []
        do {
            for number in 1...workers {
                let id = workerID(number)
                let argv = [
                    binary.path, "--coordinator", endpoint, "--id", id, "--threads", String(encoderThreads),
                    "--scratch", data.appendingPathComponent("scratch").appendingPathComponent(id).path,
                    "--key", keys.appendingPathComponent("\(id).key").path, "--coordinator-key",
                    keys.appendingPathComponent("coordinator/coordinator.pub").path,
                    // Killed, this command leaves no worker rendering for nobody.
                    "--parent", String(getpid()),
                ]
                let log = verbose ? nil : logs.appendingPathComponent("worker-\(number).log")
                if let log { try? FileManager.default.removeItem(at: log) }
                started.append(ChildProcess(pid: try Subprocess.spawn(argv, log: log)))
            }
        } catch {
            stopWorkers(started)
            throw error
        }
        return started
    }

    private func workerID(_ number: Int) -> String { "local-\(getpid())-\(number)" }

    /// SIGTERM, then SIGKILL for any worker still running after five seconds.
    private func stopWorkers(_ workers: [ChildProcess]) { ChildProcess.stop(workers, grace: 5) }
}
