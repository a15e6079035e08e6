/// What the running binary was built from. `ops/package-deb.sh` writes the commit into the copy
/// of the tree it builds from; a build from a working tree says `unknown`.
public enum BuildInfo {
    public static let commit = "unknown"
}
