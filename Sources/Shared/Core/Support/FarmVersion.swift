/// The farm's release, reported by workers in `hello` and by `--version`.
public enum FarmVersion {
    public static let current = "0.5.0"
}
