import FarmCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of the farm's own, in a folder, for `farm render` without a database:
/// created on first use (a copy of `ClusterTemplate`, else `initdb`), reached only through a
/// Unix socket (no TCP port), and stopped when done. PostgreSQL refuses to run as root, so as
/// root it runs as `postgres`.
public final class PrivatePostgres {
    public let directory: URL
    /// What a new cluster holds beyond initdb's; without one, a new cluster is initdb's own.
    private let schema: ClusterSchema?
    private let binaries: URL
    private let socketDirectory: String
    private let user: String?
    private var startedHere = false

    public init(directory: URL, schema: ClusterSchema?) throws {
        self.directory = directory.standardizedFileURL
        self.schema = schema
        binaries = try Self.findBinaries()
        user = getuid() == 0 ? "postgres" : nil
        // A Unix socket path is limited to 107 bytes; deep folders get a short one in /tmp.
        let path = self.directory.path
        if path.utf8.count < 80 {
            socketDirectory = path
        } else {
            socketDirectory = "/tmp/farm-pg-\(Self.shortName(of: path))"
        }
    }

    /// The libpq connection string of this server.
    public var connectionString: String { "host=\(socketDirectory) port=5432 user=farm dbname=postgres" }

    /// Creates the cluster if needed and starts the server unless it already runs.
    public func start() throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: directory.appendingPathComponent("PG_VERSION").path) {
            try? copyTemplate()
        }
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        if socketDirectory != directory.path {
            try manager.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
            try handOver(socketDirectory)
        }
        try handOver(directory.path)
        do {
            if !manager.fileExists(atPath: directory.appendingPathComponent("PG_VERSION").path) {
                try initdb(directory.path)
                do {
                    try AtomicFile.syncFileSystem(containing: directory.path)
                } catch {
                    throw PostgresError(message: "private PostgreSQL in \(directory.path): \(error)", state: nil)
                }
            }
            if let running = PostmasterFile.read(in: directory), running.isAlive {
                // Another command's server: use it, or wait for it to go if it is stopping.
                guard running.status == "stopping" else { return try awaitReady() }
                try awaitGone(running)
            }
            try startServer()
            try drawOwnValues()
        } catch {
            // A parent folder closed to the server's user is the likeliest cause; say so.
            try checkReachable(socketDirectory)
            try checkReachable(directory.path)
            throw error
        }
        startedHere = true
    }

    /// A new cluster as a copy of the machine's template (`ClusterTemplate`: initdb's cluster
    /// with the schema in place), made first if need be, where the folder is absent or an empty
    /// folder (not a link, not a file). Where that fails (a cache folder it may not write),
    /// `start` runs `initdb` in the folder itself, as it would without a template.
    private func copyTemplate() throws {
        guard let schema else { return }
        var status = stat()
        if lstat(directory.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR,
                (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true
            else { return }
        }
        let template = ClusterTemplate(binaries: binaries, root: user != nil, schema: schema.version)
        if !template.isMade {
            try template.make(handOver: handOver) { folder in
                try initdb(folder)
                // The schema's tables too, so that a copy has no step left to take.
                let server = try PrivatePostgres(directory: URL(fileURLWithPath: folder), schema: nil)
                try server.start()
                defer {
                    server.stop()
                    try? FileManager.default.removeItem(atPath: folder + "/server.log")
                }
                try schema.apply(PostgresConnection(url: server.connectionString))
            }
        }
        try FileManager.default.createDirectory(
            at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try template.copy(to: directory, mark: Self.copyMark) { from, to in
            // As root too: the copy keeps the server's user as the owner of every file.
            let copied = try Subprocess.run("/bin/cp", ["-a", from, to])
            guard copied.status == 0 else {
                throw PostgresError(message: "copying \(from) to \(to): \(copied.output)", state: nil)
            }
        }
    }

    /// Left in a copied cluster until its server has drawn the values each database draws for
    /// itself (`ClusterSchema.drawnPerDatabase`): a copy holds the template's until then.
    package static let copyMark = "farm-template-copy"

    /// Draws a copied cluster's own identity and secrets, once, after its server started.
    private func drawOwnValues() throws {
        let mark = directory.appendingPathComponent(Self.copyMark)
        guard let schema, FileManager.default.fileExists(atPath: mark.path) else { return }
        try PostgresConnection(url: connectionString).run(script: schema.drawnPerDatabase)
        try FileManager.default.removeItem(at: mark)
    }

    /// `initdb` into `folder`. Its own sync fsyncs each of its ~1,000 files (0.1-0.3 s on 2
    /// cores); the caller's one syncfs afterwards makes the new cluster as durable.
    private func initdb(_ folder: String) throws {
        try tool(
            "initdb", ["-D", folder, "-U", "farm", "--auth=trust", "-E", "UTF8", "--no-instructions", "--no-sync"])
    }

    /// `pg_ctl start -w` checks that the server came up, but looks only every 100 ms: the
    /// postmaster's own file says "ready" sooner, and is read every few milliseconds meanwhile.
    private func startServer() throws {
        let before = PostmasterFile.read(in: directory)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<String, Error>?>(nil)
        let thread = Thread { [self] in
            outcome.withLock {
                $0 = Result {
                    try tool(
                        "pg_ctl",
                        [
                            "-D", directory.path, "-l", directory.appendingPathComponent("server.log").path, "-w",
                            "-t", "60", "-o", "-k \(socketDirectory) -c listen_addresses= -c max_connections=200",
                            "start",
                        ])
                }
            }
            finished.signal()
        }
        thread.start()
        while finished.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
            if let file = PostmasterFile.read(in: directory), file != before, file.status == "ready", file.isAlive {
                return
            }
        }
        _ = try outcome.current!.get()
    }

    /// Waits until a server started by someone else answers.
    private func awaitReady() throws {
        let ready = Self.poll {
            guard let file = PostmasterFile.read(in: directory), file.isAlive else { return true }
            return file.status == "ready"
        }
        guard ready, let file = PostmasterFile.read(in: directory), file.isAlive, file.status == "ready" else {
            throw PostgresError(
                message: "private PostgreSQL in \(directory.path): a server was starting there and did not come up",
                state: nil)
        }
    }

    /// Waits for a stopping server's process to end.
    private func awaitGone(_ server: PostmasterFile) throws {
        guard Self.poll(until: { !server.isAlive }) else {
            throw PostgresError(
                message: "private PostgreSQL in \(directory.path): a server there is still stopping after 60 s",
                state: nil)
        }
    }

    /// Stops the server if this object started it: a fast shutdown (`pg_ctl stop -m fast`
    /// sends the same SIGINT), waited for every few milliseconds rather than every 100.
    public func stop() {
        guard startedHere else { return }
        startedHere = false
        if let server = PostmasterFile.read(in: directory), server.isAlive, kill(server.pid, SIGINT) == 0 {
            // Gone when its file is (the folder is free for another server) and so is its process.
            let gone = Self.poll { !server.isAlive && PostmasterFile.read(in: directory)?.pid != server.pid }
            if gone { return }
        }
        _ = try? tool("pg_ctl", ["-D", directory.path, "-m", "fast", "-w", "stop"])
    }

    /// A short name standing for `path` (FNV-1a, base 36): a socket folder's, a template's.
    static func shortName(of path: String) -> String {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(hash, radix: 36)
    }

    /// Checks `condition` every 5 ms for up to `seconds`; returns whether it came true.
    private static func poll(seconds: Double = 60, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(5000)
        }
        return true
    }

    /// Restarts the server as an operator's `pg_ctl restart -m fast` does: every connection is
    /// cut ("terminating connection due to administrator command").
    public func restart() throws {
        try tool(
            "pg_ctl",
            [
                "-D", directory.path, "-l", directory.appendingPathComponent("server.log").path, "-m", "fast", "-w",
                "restart",
            ])
    }

    @discardableResult
    private func tool(_ name: String, _ arguments: [String]) throws -> String {
        let result = try run(name, arguments)
        guard result.status == 0 else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            let detail = (result.output + "\n" + log.split(separator: "\n").suffix(5).joined(separator: "\n"))
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw PostgresError(
                message: "private PostgreSQL in \(directory.path): \(name) failed: \(detail)", state: nil)
        }
        return result.output
    }

    /// Runs one of the server's tools; a tool that cannot even start is a database failure too.
    private func run(_ name: String, _ arguments: [String]) throws -> Subprocess.Result {
        do {
            return try Subprocess.run(binaries.appendingPathComponent(name).path, arguments, as: user)
        } catch let error as SystemCallError {
            throw PostgresError(message: "private PostgreSQL in \(directory.path): \(error)", state: nil)
        }
    }

    /// As root, gives the folder to the server's user.
    private func handOver(_ path: String) throws {
        guard let user, let account = getpwnam(user) else { return }
        guard chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0, chmod(path, 0o700) == 0 else {
            throw PostgresError(message: "private PostgreSQL: cannot give \(path) to user \(user)", state: nil)
        }
    }

    /// Throws a clear message when the server's user cannot reach `path`: a parent folder is
    /// closed to it. Asked only after a failure: it costs a process.
    private func checkReachable(_ path: String) throws {
        guard let user else { return }
        let probe = try Subprocess.run("/usr/bin/test", ["-w", path], as: user)
        if probe.status != 0 {
            throw PostgresError(
                message: "private PostgreSQL: user \(user) cannot reach \(path) (a parent folder is closed to it); "
                    + "choose another folder with --data", state: nil)
        }
    }

    /// The server binaries: $FARM_POSTGRES_BIN, else the newest /usr/lib/postgresql/N/bin.
    private static func findBinaries() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["FARM_POSTGRES_BIN"] {
            return URL(fileURLWithPath: override)
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init)
            .sorted()
        for version in versions.reversed() {
            let bin = URL(fileURLWithPath: "\(root)/\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw PostgresError(
            message: "no PostgreSQL server found in \(root); install the postgresql package or pass --database",
            state: nil)
    }
}
