#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` says about one version of a file. Writing a file in place, even with its old
/// size and its modification time set back (`touch -d`), moves its status-change time (ctime),
/// which no user can set; replacing it (a rename over it) gives another inode. So two stamps
/// that agree name the same version, on the machine that took them and on any that mounts the
/// same file system.
public struct FileStamp: Codable, Sendable, Hashable {
    public var size: Int64
    /// Modification time in nanoseconds since the epoch.
    public var modified: Int64
    /// Status-change time (ctime) in nanoseconds since the epoch.
    public var changed: Int64
    public var inode: Int64
    /// The file system's device number, as the machine that took the stamp numbers it.
    public var device: Int64

    public init(size: Int64, modified: Int64, changed: Int64, inode: Int64, device: Int64) {
        self.size = size
        self.modified = modified
        self.changed = changed
        self.inode = inode
        self.device = device
    }

    /// The stamp of the file at `path` (symbolic links followed); nil if it cannot be read.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The stamp of the open file `descriptor`; nil if it cannot be read.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        inode = Int64(bitPattern: UInt64(info.st_ino))
        device = Int64(bitPattern: UInt64(info.st_dev))
    }

    /// Whether `other`, taken on any machine, names the same version. The device is left out:
    /// each machine numbers its own mounts, so a shared file system's file has one number on
    /// the submitter and another on every worker; its inode and times are the server's.
    public func isSameVersion(as other: FileStamp) -> Bool {
        size == other.size && modified == other.modified && changed == other.changed && inode == other.inode
    }

    /// The version's name where block digests are kept: the same on every machine.
    public var version: String { "\(size)-\(modified)-\(changed)-\(inode)" }
}
