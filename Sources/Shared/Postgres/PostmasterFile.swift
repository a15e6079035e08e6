import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A server's `postmaster.pid` as `pg_ctl` reads it: the postmaster's process id and, from
/// PostgreSQL 10 on, its state ("starting", "ready", "stopping", "standby").
package struct PostmasterFile: Equatable {
    package let pid: pid_t
    package let status: String?

    package init(pid: pid_t, status: String?) {
        self.pid = pid
        self.status = status
    }

    /// The file in `directory`, or nil while none is there (or it is half-written).
    package static func read(in directory: URL) -> PostmasterFile? {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("postmaster.pid"), encoding: .utf8)
        else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, let pid = pid_t(first.trimmingCharacters(in: .whitespaces)), pid > 0 else {
            return nil
        }
        // Line 8 (LOCK_FILE_LINE_PM_STATUS), padded with blanks.
        let status = lines.count > 7 ? lines[7].trimmingCharacters(in: .whitespaces) : nil
        return PostmasterFile(pid: pid, status: status)
    }

    /// Whether the process still runs (a pid file outlives a server that crashed). A zombie
    /// counts as ended: whoever adopted it may take a second to reap it.
    package var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"), stat.distance(from: close, to: stat.endIndex) > 2
        else { return true }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }
}
