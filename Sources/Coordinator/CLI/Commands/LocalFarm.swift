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
    /// Workers started with the database (`earlyWorkers`); nil starts them here.
    var crew: LocalWorkers? = nil
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
        // A worker takes about a tenth of a second to start: where the data folder is known
        // without the database, the workers start while the database does.
        let dataKnown = Self.dataKnown(database)
        var crew = dataKnown ? try self.crew ?? startWorkers(data: database.dataDirectory) : nil
        // Should the farm fail to start; once it runs, its teardown below stops them first.
        defer { crew?.stop() }
        let (url, server) = try started.wait()
        defer { server?.stop() }
        let store = try FarmStore(url: url)
        // A named database with the default data folder gets a folder of its own inside it: a
        // data folder belongs to one database (`DataFolderClaim`).
        var data = database.dataDirectory
        if !dataKnown {
            data = data.appendingPathComponent("farms").appendingPathComponent(try store.identity())
            crew = try startWorkers(data: data)
        }
        let farmWorkers = crew!
        var configuration = CoordinatorServer.Configuration(database: url, dataDirectory: data)
        configuration.bind = farmWorkers.endpoint
        configuration.removeSegmentsWhenDone = true
        configuration.waitsForLeadership = false
        configuration.keys = (farmWorkers.coordinatorKeys, farmWorkers.keys)
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
        defer {
            // The coordinator winds down while the workers do.
            coordinator.stop()
            farmWorkers.stop()
            // They lived for this render only; `farm workers` lists the farm's standing workers.
            try? store.forgetWorkers(farmWorkers.ids)
        }

        // The coordinator records itself once it leads, which may come after the first look
        // at the job: say now that one serves, or the view would start with "no coordinator".
        try store.recordCoordinatorServing()
        var ids: [Int64] = []
        for var submission in submissions {
            if submission.useCache {
                let cached = try store.reuseCachedGrains(&submission)
                if spreadsUncached { submission.spreadUncached(over: workers, cached: cached) }
            }
            ids.append(try store.submit(submission))
            if let api, let id = ids.last, submission.container != .frames {
                // What the job's page plays while it renders; any HLS player takes it with the
                // token. Numbered frames have no stream to play.
                let line = "live preview: \(api.server.url)/api/jobs/\(id)/preview.m3u8 (its job page: #/jobs/\(id))"
                FileHandle.standardError.writeUnlessClosed(Data((line + "\n").utf8))
            }
        }
        do {
            return try watch(store, ids) {
                try interruption.check()
                if let error = coordinatorError.current { throw Failure(description: "coordinator stopped: \(error)") }
                if farmWorkers.allExited {
                    throw Failure(description: "every worker exited; see the logs in \(farmWorkers.logs.path)")
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
        FileHandle.standardError.writeUnlessClosed(Data("dashboard: \(server.url)/#token=\(token)\n".utf8))
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

    /// Whether the data folder is known before the database answers (it is not for a named
    /// database with the default folder: `render` puts one inside it).
    private static func dataKnown(_ database: DatabaseOptions) -> Bool {
        database.namedDatabase == nil || database.dataChosen
    }

    /// `count` workers started before the project is read, where the data folder is already
    /// known; nil otherwise, or when they fail to start (`render` then starts them itself, and
    /// says why they failed).
    static func earlyWorkers(database: DatabaseOptions, count: Int, encoderThreads: Int, verbose: Bool)
        -> LocalWorkers?
    {
        guard dataKnown(database) else { return nil }
        return try? LocalWorkers(
            count: count, encoderThreads: encoderThreads, verbose: verbose, data: database.dataDirectory)
    }

    private func startWorkers(data: URL) throws -> LocalWorkers {
        try LocalWorkers(count: workers, encoderThreads: encoderThreads, verbose: verbose, data: data)
    }
}
