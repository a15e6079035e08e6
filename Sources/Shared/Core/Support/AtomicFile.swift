import CSpawn
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a file under a temporary name beside its destination and renames it into place only
/// when complete and on disk, so nobody ever sees half a file.
public struct AtomicFile {
    public let destination: URL
    /// Where the content is written until `commit()`.
    public let temporary: URL

    public init(destination: URL) {
        self.destination = destination
        let name = ".\(destination.lastPathComponent).partial-\(getpid())"
        temporary = destination.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// fsyncs the temporary file, renames it over the destination and fsyncs the folder.
    /// Scratch files that are re-rendered after a crash anyway skip the syncs (`durable: false`).
    public func commit(durable: Bool = true) throws {
        if durable { try AtomicFile.fsync(path: temporary.path) }
        try SystemCall.retrying("rename", path: destination.path) { rename(temporary.path, destination.path) }
        if durable { try? AtomicFile.fsync(path: destination.deletingLastPathComponent().path) }
    }

    /// Moves a finished file (already written in the same file system) over `destination`;
    /// `synced` says its bytes are on disk already, so only the rename is made durable.
    public static func replace(_ destination: URL, with finished: URL, synced: Bool = false) throws {
        if !synced { try fsync(path: finished.path) }
        try AtomicFile(destination: destination, temporary: finished).commit(durable: false)
        try? fsync(path: destination.deletingLastPathComponent().path)
    }

    private init(destination: URL, temporary: URL) {
        self.destination = destination
        self.temporary = temporary
    }

    /// Removes temporary files of `destination` left by processes that died mid-write (a
    /// killed join); a live process's file is left alone. Returns the names removed.
    @discardableResult
    public static func removeLeftovers(of destination: URL) -> [String] {
        let folder = destination.deletingLastPathComponent()
        let prefix = ".\(destination.lastPathComponent).partial-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { name in
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)) else { return false }
            guard pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { return false }
            return unlink(folder.appendingPathComponent(name).path) == 0
        }
    }

    /// Removes the temporary file after a failure.
    public func discard() {
        unlink(temporary.path)
    }

    /// Flushes a file's (or a folder's) contents to disk.
    public static func fsync(path: String) throws {
        try flush(path, "fsync") { Glibc.fsync($0) }
    }

    /// Flushes everything written to the file system that holds `path`: one call, where
    /// fsyncing a freshly written tree of many files costs one each.
    public static func syncFileSystem(containing path: String) throws {
        try flush(path, "syncfs") { farm_syncfs($0) }
    }

    /// Opens `path` read-only and runs the flushing `call` on it.
    private static func flush(_ path: String, _ name: String, _ call: (Int32) -> Int32) throws {
        let descriptor = try SystemCall.retrying("open", path: path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(descriptor) }
        try SystemCall.retrying(name, path: path) { call(descriptor) }
    }
}
