import CSpawn

#if canImport(Glibc)
    import Glibc
#endif

/// For a process that only makes sense while the one that started it lives (`farm render`'s
/// workers): when the parent ends, killed or crashed, this process gets SIGTERM and stops as
/// if told to, rather than rendering for nobody.
public enum ParentLifetime {
    /// Ties this process to `parent`; false when `parent` has already ended.
    public static func end(with parent: pid_t) -> Bool {
        _ = farm_signal_on_parent_death(SIGTERM)
        // The parent may have ended before the request was in place.
        return getppid() == parent
    }
}
