import FarmCore
import FarmPostgres
import FarmRender
import FarmStore
import FarmWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `farm-bench --scheduler`: a real coordinator (`farm serve`) and a private PostgreSQL against
/// simulated workers (`SimulatedWorkers`), with a job of many chunks. Prints assignments per
/// second, assignment latency, database statements per assignment (pg_stat_statements), the
/// coordinator's CPU and memory, how long `farm status` takes with that job in the database,
/// and how long putting back every lease the workers held takes once they are all gone.
enum SchedulerBench {
    struct Options {
        var workers = 1000
        var slots = 1
        var chunks = 100_000
        var seconds = 10.0
        /// How long a simulated worker holds a chunk; 0 asks as fast as the coordinator serves.
        var renderSeconds = 0.2
    }

    static func run(_ options: Options) throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("farm-bench-scheduler-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        raiseDescriptorLimit()

        let database = try PrivatePostgres(directory: folder.appendingPathComponent("db"))
        try database.start()
        defer { database.stop() }
        try countStatements(database)
        let store = try FarmStore(url: database.connectionString)
        // The bench's own questions about the database: the store runs only the farm's.
        let statistics = try PostgresConnection(url: database.connectionString)

        let clock = ContinuousClock()
        let projectFile = try writeProject(in: folder, chunks: options.chunks)
        var started = clock.now
        let submission = try JobSubmission(
            loaded: ProjectLoader().load(file: projectFile.path), file: projectFile.path, mediaRoot: nil,
            output: folder.appendingPathComponent("out.mp4"), container: .mp4, chunkSize: .frames(chunkFrames))
        let planned = clock.now - started
        started = clock.now
        let job = try store.submit(submission)
        let inserted = clock.now - started
        print(
            "job \(job): \(submission.chunks.count) video chunks and \(submission.audioBlocks.count) audio blocks; "
                + "planned in \(milliseconds(planned)), recorded in \(milliseconds(inserted))")

        let port = try freePort()
        let log = folder.appendingPathComponent("serve.log")
        let coordinator = try Subprocess.spawn(
            [
                farmExecutable(), "serve", "--database", database.connectionString, "--data",
                folder.appendingPathComponent("data").path, "--bind", "tcp://127.0.0.1:\(port)",
                "--lease-seconds", String(leaseSeconds), "--output-root", folder.path,
            ], standardOutput: log, standardError: log)
        var coordinatorRunning = true
        defer {
            if coordinatorRunning {
                kill(coordinator, SIGTERM)
                _ = Subprocess.wait(coordinator, timeout: 30)
            }
        }
        try waitForLine("coordinator listening", in: log, pid: coordinator)

        let workers = try SimulatedWorkers(
            count: options.workers, slots: options.slots, renderTime: .seconds(options.renderSeconds),
            endpoint: "tcp://127.0.0.1:\(port)")
        try workers.join()
        // Until every worker has said hello and had its first chunks.
        try workers.run(until: clock.now + .seconds(3))

        try measure(
            workers, seconds: options.seconds, options: options, coordinator: coordinator, statistics: statistics)
        // `farm status` reads the chunks rendering or waiting after a failure one by one: the
        // simulated workers free their slots without an upload, so theirs stay "running".
        let running: Int64 = try statistics.query(
            "SELECT count(*) AS running FROM chunks WHERE job_id = $1 AND state = 'running'", [String(job)]
        )[0].decode("running")
        print("chunks left running  \(running) (the simulated workers never upload)")
        try timeStatus(database: database.connectionString, job: job)
        // Autovacuum gathers the tables' statistics within a minute or so of a change this large;
        // until then the planner guesses the rows of each state, as above. The same again with them.
        try statistics.query("ANALYZE chunks, attempts")
        try timeStatus(database: database.connectionString, job: job, label: ", with statistics (ANALYZE)")
        // The claims again with those statistics, as a farm runs once autovacuum has read its
        // tables (a shorter window: what chunks the job has left).
        print("with statistics (ANALYZE):")
        // Served again first: what their renders ended meanwhile is answered outside the window.
        try workers.run(until: ContinuousClock.now + .seconds(2))
        try measure(
            workers, seconds: options.seconds / 2, options: options, coordinator: coordinator, statistics: statistics)
        // The simulated workers all gone at once, as a rack lost: every lease they held runs out.
        kill(coordinator, SIGTERM)
        _ = Subprocess.wait(coordinator, timeout: 30)
        coordinatorRunning = false
        try statistics.query("UPDATE chunks SET lease_expires = now() - interval '1 second' WHERE state = 'running'")
        started = clock.now
        let expired = try store.expireLeases().count
        print("lease expiry         \(expired) leases put back in \(milliseconds(clock.now - started))")
    }

    /// One measured window: assignments, latency, statements, CPU, then the slowest statements.
    static func measure(
        _ workers: SimulatedWorkers, seconds: Double, options: Options, coordinator: pid_t,
        statistics: PostgresConnection
    ) throws {
        let clock = ContinuousClock()
        try statistics.query("SELECT pg_stat_statements_reset()")
        let cpuBefore = cpuSeconds(coordinator)
        let simulatorBefore = cpuSeconds(getpid())
        workers.startCounting()
        let started = clock.now
        try workers.run(until: clock.now + .seconds(seconds))
        let window = (clock.now - started) / .seconds(1)
        let cpu = cpuSeconds(coordinator) - cpuBefore
        let simulatorCPU = cpuSeconds(getpid()) - simulatorBefore
        let statements: Int64 = try statistics.query(
            """
            SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_statements
            WHERE query NOT LIKE '%pg_stat_statements%'
            """)[0].decode("calls")

        let sorted = workers.latencies.sorted()
        let rate = Double(workers.assignments) / window
        print(
            """
            \(options.workers) simulated workers × \(options.slots) slot\(options.slots == 1 ? "" : "s"), \
            \(String(format: "%.1f", window)) s measured, leases of \(leaseSeconds) s, \
            each chunk held \(Int(options.renderSeconds * 1000)) ms\(offered(options))
            assignments/s        \(String(format: "%.0f", rate))  (\(workers.assignments) assignments)
            latency p50          \(String(format: "%.2f", percentile(sorted, 0.50) * 1000)) ms
            latency p99          \(String(format: "%.2f", percentile(sorted, 0.99) * 1000)) ms
            statements/assignment \(String(format: "%.2f", Double(statements) / Double(max(1, workers.assignments)))) \
            (\(statements) statements)
            coordinator CPU      \(String(format: "%.2f", cpu / window)) cores \
            (\(String(format: "%.0f", cpu / Double(max(1, workers.assignments)) * 1e6)) µs per assignment)
            coordinator memory   \(residentMegabytes(coordinator)) MB resident, \(peakMegabytes(coordinator)) MB peak
            simulated workers    \(String(format: "%.2f", simulatorCPU / window)) cores (on the same machine)
            """)
        try printSlowestStatements(statistics)
    }

    /// Longer than the run, so that no lease of an attempt the simulated workers stopped naming
    /// (its upload would be over) expires while it is measured; heartbeats reach the database a
    /// few times a lease, so this is a longer lease than the default 10 s, stated in the output.
    static let leaseSeconds = 30

    /// The load the workers offer, when their renders take time.
    static func offered(_ options: Options) -> String {
        guard options.renderSeconds > 0 else { return " (as fast as served)" }
        let rate = Double(options.workers * options.slots) / options.renderSeconds
        return String(format: " (at most %.0f assignments/s offered)", rate)
    }

    /// Frames per chunk: half a second at 25 fps, so that 100,000 chunks fit in a day's timeline.
    static let chunkFrames: Int64 = 12

    /// One solid colour for `chunks` seconds: what matters here is the number of chunks.
    static func writeProject(in folder: URL, chunks: Int) throws -> URL {
        let file = folder.appendingPathComponent("long.json")
        let text = """
            {
              "output": { "width": 64, "height": 36, "fps": 25 },
              "export": { "container": "mp4", "video": { "codec": "h264", "gop": \(chunkFrames) } },
              "assets": {},
              "tracks": [ { "kind": "video", "items": [
                { "solid": "#336699", "at": 0, "duration": "\(Int64(chunks) * chunkFrames)/25" } ] } ]
            }
            """
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// `farm status` and `farm status JOB` as an operator runs them: the whole command, five times.
    static func timeStatus(database: String, job: Int64, label: String = "") throws {
        for arguments in [["status"], ["status", String(job)]] {
            var times: [Double] = []
            for _ in 0..<5 {
                let clock = ContinuousClock()
                let started = clock.now
                let result = try Subprocess.run(farmExecutable(), arguments + ["--database", database])
                guard result.status == 0 else {
                    throw BenchError("farm \(arguments.joined(separator: " ")) failed: \(result.output)")
                }
                times.append((clock.now - started) / .seconds(1))
            }
            times.sort()
            print(
                "farm \(arguments.joined(separator: " "))".padding(toLength: 21, withPad: " ", startingAt: 0)
                    + String(format: "%.0f ms median, %.0f ms slowest of 5", times[2] * 1000, times[4] * 1000) + label)
        }
    }

    /// Statements are counted by pg_stat_statements, which must be loaded when the server starts.
    static func countStatements(_ database: PrivatePostgres) throws {
        let connection = try PostgresConnection(url: database.connectionString)
        try connection.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        try database.restart()
        try PostgresConnection(url: database.connectionString).query(
            "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    }

    static func printSlowestStatements(_ statistics: PostgresConnection) throws {
        print("database time by statement (top 5):")
        for row in try statistics.query(
            """
            SELECT calls, round(total_exec_time)::bigint AS milliseconds,
                   regexp_replace(left(query, 70), '\\s+', ' ', 'g') AS statement
            FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
            ORDER BY total_exec_time DESC LIMIT 5
            """)
        {
            let calls: Int64 = try row.decode("calls")
            let milliseconds: Int64 = try row.decode("milliseconds")
            print(String(format: "  %8lld calls %6lld ms  ", calls, milliseconds) + (try row.decode("statement")))
        }
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.0f ms", duration / .milliseconds(1))
    }

    static func farmExecutable() -> String {
        URL(fileURLWithPath: Subprocess.currentExecutable).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("farm").path
    }

    static func waitForLine(_ text: String, in log: URL, pid: pid_t) throws {
        for _ in 0..<600 {
            if let contents = try? String(contentsOf: log, encoding: .utf8), contents.contains(text) { return }
            if Subprocess.wait(pid, timeout: 0) != nil {
                throw BenchError("farm serve stopped: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            usleep(50_000)
        }
        throw BenchError("farm serve did not start within 30 s")
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A socket per simulated worker, and the coordinator's per connection.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// User and system CPU seconds of `pid` so far (/proc/PID/stat, fields 14 and 15).
    static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func residentMegabytes(_ pid: pid_t) -> Int { statusKilobytes(pid, "VmRSS:") / 1024 }
    static func peakMegabytes(_ pid: pid_t) -> Int { statusKilobytes(pid, "VmHWM:") / 1024 }

    static func statusKilobytes(_ pid: pid_t, _ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) } ?? 0
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
