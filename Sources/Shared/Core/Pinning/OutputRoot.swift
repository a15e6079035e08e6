import Foundation

/// The folder a coordinator may write outputs in. A job's output must resolve (its folder's
/// symbolic links followed) to a path below it and must not itself be a symbolic link, so a
/// submitted job can never make the coordinator write anywhere else.
public struct OutputRoot: Sendable, Equatable {
    /// Resolved and standardized.
    public let path: String

    public init(_ folder: URL) {
        path = PathConfinement.resolved(folder.path)
    }

    /// Why the coordinator must not write `output`, or nil when it may.
    public func problem(with output: String) -> String? {
        let url = URL(fileURLWithPath: output).standardizedFileURL
        let folder = PathConfinement.resolved(url.deletingLastPathComponent().path)
        guard PathConfinement.contains(root: path, folder) else {
            return
                "the output \(output) is outside the coordinator's output root \(path) (see farm serve --output-root)"
        }
        if PathConfinement.isSymbolicLink(folder + "/" + url.lastPathComponent) {
            return "the output \(output) is a symbolic link; the farm never writes through one"
        }
        return nil
    }
}
