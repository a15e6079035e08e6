import CSpawn
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs helper programs (the PostgreSQL server tools, and the tests' oracles) with posix_spawn and waitpid.
///
/// Not Foundation's `Process`: it learns that a child ended when a socket the child inherits is
/// closed, so a daemon the child leaves behind (`pg_ctl start` leaves the server) keeps it waiting
/// for ever. Children here get standard input from /dev/null, output to files, no other
/// descriptor of ours (a server we start must not hold our sockets, ports or files open), and
/// default signal handling.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Runs `program` with `arguments` to the end; with `user` set (as root), through `runuser`
    /// as that user. Standard output and error are captured together.
    public static func run(_ program: String, _ arguments: [String], as user: String? = nil) throws -> Result {
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] } ?? [program]) + arguments
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
            "farm-subprocess-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: capture) }
        let pid = try spawn(argv, standardOutput: capture, standardError: capture)
        let status = wait(pid, timeout: nil)!
        return Result(status: status, output: (try? String(contentsOf: capture, encoding: .utf8)) ?? "")
    }

    /// Starts `argv` (its first element a path) and returns its process id. When both outputs
    /// name the same file they share one descriptor, so their lines interleave in order.
    public static func spawn(_ argv: [String], standardOutput: URL, standardError: URL, directory: URL? = nil) throws
        -> pid_t
    {
        try spawn(argv, directory: directory) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            if standardError == standardOutput {
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            } else {
                posix_spawn_file_actions_addopen(&actions, 2, standardError.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
        }
    }

    /// Starts `argv` with both outputs appended to `log`, or sharing ours when `log` is nil.
    public static func spawn(_ argv: [String], log: URL?) throws -> pid_t {
        try spawn(argv, directory: nil) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            if let log {
                posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            }
        }
    }

    /// A child that reads what we write and writes what we read, through pipes.
    public struct Piped {
        public var pid: pid_t
        /// The child's standard input.
        public var input: FileHandle
        /// The child's standard output.
        public var output: Int32
    }

    /// Starts `argv` with pipes for its standard input and output; its standard error is ours.
    public static func spawnPiped(_ argv: [String]) throws -> Piped {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        // Close-on-exec from the start, so no other child inherits an end; dup2 onto the
        // child's 0 and 1 clears the flag there.
        try SystemCall.retrying("pipe2", path: argv[0]) { farm_pipe_cloexec(&toChild) }
        do {
            try SystemCall.retrying("pipe2", path: argv[0]) { farm_pipe_cloexec(&fromChild) }
        } catch {
            for end in toChild { close(end) }
            throw error
        }
        defer {
            close(toChild[0])
            close(fromChild[1])
        }
        do {
            let pid = try spawn(argv, directory: nil) { actions in
                posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
                posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
            }
            return Piped(
                pid: pid, input: FileHandle(fileDescriptor: toChild[1], closeOnDealloc: true), output: fromChild[0])
        } catch {
            close(toChild[1])
            close(fromChild[0])
            throw error
        }
    }

    private static func spawn(
        _ argv: [String], directory: URL?, standardDescriptors: (inout posix_spawn_file_actions_t) -> Void
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        standardDescriptors(&actions)
        farm_spawn_add_closefrom(&actions, 3)
        if let directory { farm_spawn_add_chdir(&actions, directory.path) }
        // Our threads block most signals (Dispatch does); a child must not inherit that, or it
        // could not be stopped (tmux's server waits for ever for a shell that cannot get SIGHUP).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        try SystemCall.check("posix_spawn", path: argv[0], returned: spawned)
        return pid
    }

    /// This process's own executable, to run as a helper: `/proc/self/exe`, which still runs
    /// this very program after an upgrade replaced or removed its file.
    public static var currentExecutable: String {
        FileManager.default.fileExists(atPath: "/proc/self/exe") ? "/proc/self/exe" : CommandLine.arguments[0]
    }

    /// Waits for `pid` to end and returns its exit status (128 + N for signal N), or nil if it
    /// is still running after `timeout` seconds.
    public static func wait(_ pid: pid_t, timeout: Double?) -> Int32? {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var status: Int32 = 0
        while true {
            guard
                let ended = try? SystemCall.retrying(
                    "waitpid", { waitpid(pid, &status, deadline == nil ? 0 : WNOHANG) })
            else { return -1 }
            if ended == pid { break }
            if let deadline {
                if Date() > deadline { return nil }
                usleep(10_000)
            }
        }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
