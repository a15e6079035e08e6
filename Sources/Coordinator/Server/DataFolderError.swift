#if canImport(Glibc)
    import Glibc
#endif

/// A write in the coordinator's data folder failed: the disk is full, or the folder cannot be
/// written. Uploads wait for it to pass; nothing is failed on its account.
struct DataFolderError: Error, CustomStringConvertible {
    var path: String
    var code: Int32

    var isFull: Bool { code == ENOSPC || code == EDQUOT }

    var reason: String { String(cString: strerror(code)) }

    var description: String { "cannot write \(path): \(reason)" }
}
