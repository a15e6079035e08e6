/// The children the farm starts from its own executable (`farm NAME`, a `HelperProcess`) to keep
/// FFmpeg's crashes and hangs on a user's file out of the process that asked. Each is served by
/// the library that owns its work; the command line only dispatches to it.
public enum HelperCommand: String, Sendable, CaseIterable {
    /// `IsolatedMediaProbe.serve()` (FarmMedia): probes media files.
    case probeMedia = "probe-media"
    /// `SegmentVerifier.serve()` (FarmRender): checks uploaded segments.
    case verifySegments = "verify-segments"

    /// The argv that starts this child from `program`, the farm's executable.
    public func argv(program: String) -> [String] { [program, rawValue] }
}
