#if canImport(Glibc)
    import Glibc
#endif

/// Standard input, output and error, made safe to rely on.
///
/// A program started with one of them closed (from cron, a CI runner, a supervisor) would hand
/// descriptor 0, 1 or 2 to the first file, pipe or socket it opens; a log line could then land in a
/// segment, or a child could hold a pipe its parent reads to the end. OpenSSH's sanitise_stdfd
/// does the same.
public enum StandardDescriptors {
    /// Opens /dev/null on any of descriptors 0, 1 and 2 that is closed.
    public static func openMissing() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // open returns the lowest free descriptor, which is this one: the lower ones are open.
            _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
        }
    }
}
