import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a helper program (the PostgreSQL server tools) and captures what it prints.
///
/// Uses posix_spawn and waitpid directly: `pg_ctl start` leaves a server running that inherits
/// the child's descriptors, and Foundation's `Process` then waits for that server too.
enum Subprocess {
    struct Result {
        var status: Int32
        var output: String
    }

    /// Runs `program` with `arguments`; with `user` set (as root), through `runuser` as that user.
    static func run(_ program: String, _ arguments: [String], as user: String? = nil) throws -> Result {
        let argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--", program] } ?? [program]
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("farm-subprocess-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: capture) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, capture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let all = argv + arguments
        let cArguments = all.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, all[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw PostgresError(message: "cannot run \(all[0]): \(String(cString: strerror(spawned)))", state: nil)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exitCode, output: output)
    }
}
