import Foundation

/// Keeping reads and writes inside a folder: paths compared once `.`, `..` and symbolic links
/// are resolved, so neither an absolute path elsewhere nor a link out gets past.
public enum PathConfinement {
    /// `path` made absolute, standardized and with its symbolic links followed.
    public static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether the resolved `path` is `root` (resolved too) or below it.
    public static func contains(root: String, _ path: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root + "/")
    }

    /// Whether `path` itself (not what it points to) is a symbolic link.
    public static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeSymbolicLink
    }
}
