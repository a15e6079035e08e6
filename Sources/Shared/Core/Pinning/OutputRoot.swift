import Foundation

/// The folder a coordinator may write outputs in. A job's output must resolve (its folder's
/// symbolic links followed) to a path below it and must not itself be a symbolic link, so a
/// submitted job can never make the coordinator write anywhere else.
public struct OutputRoot: Sendable, Equatable {
    /// Resolved and standardized.
    public let path: String

    public init(_ folder: URL) {
        path = folder.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Why the coordinator must not write `output`, or nil when it may.
    public func problem(with output: String) -> String? {
        let url = URL(fileURLWithPath: output).standardizedFileURL
        let folder = url.deletingLastPathComponent().resolvingSymlinksInPath().path
        let inside = path == "/" || folder == path || folder.hasPrefix(path + "/")
        guard inside else {
            return
                "the output \(output) is outside the coordinator's output root \(path) (see farm serve --output-root)"
        }
        let resolved = folder + "/" + url.lastPathComponent
        if let kind = try? FileManager.default.attributesOfItem(atPath: resolved)[.type] as? FileAttributeType,
            kind == .typeSymbolicLink
        {
            return "the output \(output) is a symbolic link; the farm never writes through one"
        }
        return nil
    }
}
