#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` says about a file, enough to tell that it has not been touched since its content
/// was hashed: a digest is reused only while size, modification time and inode all match.
public struct FileStamp: Sendable, Hashable {
    public var size: Int64
    /// Modification time in nanoseconds since the epoch.
    public var modified: Int64
    public var inode: Int64

    /// The stamp of the file at `path` (symbolic links followed); nil if it cannot be read.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        inode = Int64(bitPattern: UInt64(info.st_ino))
    }
}
