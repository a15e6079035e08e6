import Foundation

/// Whether a render may write `path`: its container from the extension (the extension decides,
/// as with every tool that writes media), the codecs that container holds, a folder that exists
/// and is writable. The command line prints the problems; the HTTP API answers with them.
public struct OutputCheck: Sendable {
    public let url: URL
    /// Nil when the extension names no container the farm writes.
    public let container: ExportSettings.Container?
    /// One line each, naming the project or the output.
    public let problems: [String]
    /// Set when the extension picks another container than the project's `export.container`.
    public let note: String?

    public init(path: String, project: Project, projectFile: String) {
        url = URL(fileURLWithPath: path).standardizedFileURL
        let ext = url.pathExtension.lowercased()
        let supported = ExportSettings.Container.allCases.map { ".\($0.fileExtension)" }.joined(separator: ", ")
        guard let container = ExportSettings.Container(fileExtension: ext) else {
            let named =
                ext.isEmpty
                ? "has no extension" : "ends in .\(url.pathExtension), which is no container the farm writes"
            self.container = nil
            problems = ["\(path): \(named); use one of \(supported)"]
            note = nil
            return
        }
        self.container = container
        note =
            container == project.export.container
            ? nil
            : "writing \(container.rawValue) as \(path) asks (\(projectFile): export.container is "
                + "\(project.export.container.rawValue))"
        var problems = project.export.codecsUnsupported(by: container).map { key, codec, needs in
            let extensions = needs.split(separator: " ").filter { $0 != "or" }.map { ".\($0.filter { $0 != "," })" }
                .joined(
                    separator: " or ")
            return "\(projectFile): export.\(key): \(codec) needs a \(extensions) output (got \(path))"
        }
        var isFolder: ObjCBool = false
        let folder = url.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
            problems.append("\(path): the folder \(folder) does not exist")
        } else if !FileManager.default.isWritableFile(atPath: folder) {
            problems.append("\(path): the folder \(folder) is not writable")
        }
        self.problems = problems
    }

    /// Why the output may not be written over: a symbolic link (writing through one could
    /// replace any file the coordinator can write), or a file there unless `overwrite`.
    public func replaceProblem(overwrite: Bool) -> String? {
        if PathConfinement.isSymbolicLink(url.path) {
            return "\(url.path): is a symbolic link; the farm never writes through one"
        }
        if !overwrite, FileManager.default.fileExists(atPath: url.path) {
            return "\(url.path): exists; pass --overwrite to replace it"
        }
        return nil
    }
}
