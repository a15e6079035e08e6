import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed: which call, on what path (or program), and the errno it set.
/// The one error type for them all, so a message always says what was being done to what.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public let call: String
    public let path: String?
    public let code: Int32

    public init(call: String, path: String?, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// The system's words for `code` ("No space left on device").
    public var reason: String { String(cString: strerror(code)) }

    /// The disk, or the user's quota on it, is full.
    public var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }

    public var description: String { "\(call)\(path.map { " \($0)" } ?? ""): \(reason)" }
}

/// The funnel for the farm's own system calls on files, descriptors and children: a call
/// interrupted by a signal (EINTR) is made again here and nowhere else, and a failure becomes a
/// `SystemCallError` that names the call and the path.
public enum SystemCall {
    /// Makes the call until it is not interrupted; its result, or a `SystemCallError` when it
    /// returned -1.
    @discardableResult
    public static func retrying<Result: BinaryInteger>(
        _ call: String, path: String? = nil, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            guard result == -1 else { return result }
            let code = errno
            guard code == EINTR else { throw SystemCallError(call: call, path: path, code: code) }
        }
    }

    /// For the calls that return the error number instead of setting errno (posix_spawn).
    public static func check(_ call: String, path: String? = nil, returned code: Int32) throws(SystemCallError) {
        guard code == 0 else { throw SystemCallError(call: call, path: path, code: code) }
    }

    /// Reads `count` bytes at `offset` into `buffer`, fewer only where the file ends; returns how many.
    public static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, count: Int, at offset: Int64, path: String
    ) throws(SystemCallError) -> Int {
        precondition(count <= buffer.count)
        var filled = 0
        while filled < count {
            let got = try retrying("pread", path: path) {
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
            }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// Writes all of `bytes` at `offset`; a write that takes nothing is a full disk (ENOSPC).
    public static func write(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String
    ) throws(SystemCallError) {
        var written = 0
        while written < bytes.count {
            let count = try retrying("pwrite", path: path) {
                pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            }
            guard count > 0 else { throw SystemCallError(call: "pwrite", path: path, code: ENOSPC) }
            written += count
        }
    }
}
