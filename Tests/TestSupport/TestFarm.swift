import FarmCore
import FarmMedia
import FarmPostgres
import FarmRender
import FarmStore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One private PostgreSQL server for the whole test run; each test gets its own database.
public enum TestDatabase {
    private static let server = Locked<PrivatePostgres?>(nil)
    private static let counter = Locked(0)

    /// A fresh, empty database's connection string.
    public static func create() throws -> String {
        let base = try server.withLock { server -> String in
            if server == nil {
                let folder = URL(fileURLWithPath: "/tmp/farm-tests-pg-\(getpid())")
                let created = try PrivatePostgres(directory: folder)
                try created.start()
                atexit {
                    TestDatabase.stopServer()
                }
                server = created
            }
            return server!.connectionString
        }
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let name = "test_\(getpid())_\(number)"
        try PostgresConnection(url: base).query("CREATE DATABASE \(name)")
        return base.replacingOccurrences(of: "dbname=postgres", with: "dbname=\(name)")
    }

    public static func stopServer() {
        server.withLock { server in
            server?.stop()
            if let folder = server?.directory { try? FileManager.default.removeItem(at: folder) }
            server = nil
        }
    }
}

/// A `farm serve` or `farm-worker` process for a test, logging to a file in the test folder.
public final class FarmProcess {
    public let process = Process()
    public let log: URL

    /// `environment`, when given, is the process's whole environment.
    public init(
        _ program: String, _ arguments: [String], log: URL, namespace: String? = nil,
        environment: [String: String]? = nil
    ) throws {
        let binary = productsDirectory.appendingPathComponent(program).path
        if let namespace {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", namespace, binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        if let environment { process.environment = environment }
        self.log = log
        // A process started again (a restarted coordinator) adds to its predecessor's log.
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Sends `signal`; waits for the process to end unless `wait` is false (SIGSTOP, SIGCONT).
    public func kill(_ signal: Int32 = SIGKILL, wait: Bool = true) {
        Glibc.kill(process.processIdentifier, signal)
        if wait { process.waitUntilExit() }
    }

    /// SIGTERM, as an operator or a service manager stops it. A program that is still running
    /// 20 s later is killed, and the test fails: a farm process must stop when asked.
    public func stop() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            kill(SIGKILL)
            Issue.record("\(log.lastPathComponent): still running 20 s after SIGTERM\n\(output.suffix(3000))")
        }
        process.waitUntilExit()
    }

    public var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    deinit { stop() }
}

/// A coordinator and workers run as real processes against a test database.
public final class TestFarm {
    public let directory: URL
    public let database: String
    public let port: Int
    public var coordinator: FarmProcess?
    public var workers: [FarmProcess] = []
    public let store: FarmStore
    /// A connection of the test's own, to read rows no store API returns (`read`).
    private let reader: PostgresConnection
    public let leaseSeconds: Double
    /// The coordinator's `--data` folder.
    public var dataDirectory: URL

    /// A farm on a fresh database of the shared test server, or on `database`.
    public init(directory: URL, leaseSeconds: Double = 3, database: String? = nil) throws {
        self.directory = directory
        self.leaseSeconds = leaseSeconds
        dataDirectory = directory.appendingPathComponent("data")
        if let database { self.database = database } else { self.database = try TestDatabase.create() }
        // Below Linux's ephemeral ports (32768 and up): a port the kernel hands to some client
        // socket (PostgreSQL's, an HTTP server's port 0) is never taken from under the farm.
        port = Int.random(in: 20_000...32_000)
        store = try FarmStore(url: self.database)
        reader = try PostgresConnection(url: self.database)
    }

    public var endpoint: String { "tcp://127.0.0.1:\(port)" }

    /// Rows no store API returns. The connection is opened again once after a database restart
    /// or outage cut it, as the farm's own are.
    public func read(_ sql: String, _ parameters: [String?] = []) throws -> [PostgresRow] {
        do {
            return try reader.query(sql, parameters)
        } catch let error as PostgresError where error.isConnectionLost {
            try reader.reconnect()
            return try reader.query(sql, parameters)
        }
    }

    public func startCoordinator(bind: String? = nil, namespace: String? = nil, arguments: [String] = []) throws {
        coordinator = try FarmProcess(
            "farm",
            [
                "serve", "--database", database, "--bind", bind ?? endpoint, "--data",
                dataDirectory.path, "--output-root", directory.path,
                "--lease-seconds", String(leaseSeconds),
            ] + arguments, log: directory.appendingPathComponent("coordinator.log"), namespace: namespace)
    }

    /// The coordinator, then one worker per id.
    public func start(workers ids: [String]) throws {
        try startCoordinator()
        for id in ids { try startWorker(id) }
    }

    @discardableResult
    public func startWorker(
        _ id: String, coordinator: String? = nil, namespace: String? = nil, arguments: [String] = []
    ) throws -> FarmProcess {
        let worker = try FarmProcess(
            "farm-worker",
            [
                "--coordinator", coordinator ?? endpoint, "--id", id, "--scratch",
                directory.appendingPathComponent("scratch-\(id)").path,
            ] + arguments, log: directory.appendingPathComponent("worker-\(id).log"), namespace: namespace)
        workers.append(worker)
        return worker
    }

    /// Submits through the real `farm submit` and returns the job id it printed.
    /// Before the coordinator starts, with --queue-only: the job waits for it.
    public func submit(_ project: URL, output: URL, chunkArguments: [String]) throws -> Int64 {
        let early = coordinator == nil ? ["--queue-only"] : []
        // `farm submit` refuses a farm no coordinator has served yet: a coordinator just started
        // may not have recorded itself (a clean-clone run under load submitted first).
        if coordinator != nil {
            try wait("the coordinator to record itself", timeout: 60) {
                try store.coordinatorLiveness().lastSeen != nil
            }
        }
        let result = try cli(["submit", project.path, "-o", output.path] + chunkArguments + early)
        guard result.status == 0, let id = Int64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestError.failed("farm submit failed (\(result.status)): \(result.stderr)")
        }
        return id
    }

    /// Runs `farm ARGUMENTS --database URL` and returns what it did, whatever its exit status.
    public func cli(_ arguments: [String]) throws -> ProcessResult {
        try runFarm(arguments + ["--database", database])
    }

    /// Starts `farm ARGUMENTS --database URL` without waiting for it; `finish` collects it.
    public func cliInBackground(_ arguments: [String]) throws -> RunningProgram {
        try RunningProgram(farmProgram, arguments + ["--database", database])
    }

    /// Runs a `--json` read command and decodes what it printed.
    public func json<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
        let result = try cli(arguments + ["--json"])
        guard result.status == 0 else {
            throw TestError.failed("farm \(arguments) exited \(result.status): \(result.stderr)")
        }
        return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
    }

    /// Waits until `condition` holds, checking every 0.1 s; fails after `timeout` seconds.
    public func wait(_ what: String, timeout: Double = 300, until condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            if Date() > deadline { throw TestError.failed("timed out waiting for \(what)\n\(logs)") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Waits for the job to finish and returns it.
    public func finish(_ job: Int64, timeout: Double = 300) throws -> JobRecord {
        var record: JobRecord?
        try wait("job \(job) to finish", timeout: timeout) {
            record = try store.job(job)
            return record?.isFinished ?? false
        }
        return record!
    }

    /// Waits until `worker` renders a video chunk of `job` and returns that attempt.
    public func runningVideoAttempt(of job: Int64, worker: String) throws -> AttemptKey {
        var target: AttemptKey?
        try wait("\(worker) mid-chunk") {
            let rows = try read(
                """
                SELECT a.chunk_id, a.attempt FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                WHERE c.job_id = $1 AND c.kind = 'video' AND a.worker_id = $2 AND a.outcome = 'running'
                """, [String(job), worker])
            target = try rows.first.map { row in
                AttemptKey(chunk: try row.decode("chunk_id"), attempt: try row.decode("attempt"))
            }
            return target != nil
        }
        return target!
    }

    /// Attempts of a job as (chunk index, kind, attempt, worker, outcome, error).
    public func attempts(_ job: Int64) throws -> [(
        index: Int, kind: String, attempt: Int, worker: String, outcome: String, error: String?
    )] {
        try read(
            """
            SELECT c.idx, c.kind, a.attempt, a.worker_id, a.outcome, a.error
                FROM attempts a JOIN chunks c ON c.id = a.chunk_id
            WHERE c.job_id = $1 ORDER BY c.kind, c.idx, a.attempt
            """, [String(job)]
        ).map { row in
            (
                try row.decode("idx"), try row.decode("kind"), try row.decode("attempt"), try row.decode("worker_id"),
                try row.decode("outcome"), try row.decode("error")
            )
        }
    }

    public var logs: String {
        ([coordinator].compactMap { $0 } + workers).map { "--- \($0.log.lastPathComponent)\n\($0.output.suffix(3000))" }
            .joined(separator: "\n")
    }

    public func stopAll() {
        for worker in workers { worker.stop() }
        coordinator?.stop()
    }

    deinit { stopAll() }
}
