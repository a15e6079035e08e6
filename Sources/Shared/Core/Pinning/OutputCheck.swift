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
        let supported =
            ExportSettings.Container.allCases.filter { $0 != .frames }.map { ".\($0.fileExtension)" }
            .joined(separator: ", ") + ", or numbered frames (out.%06d.png, .tif, .dpx, .exr)"
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
        // A numbered-frames output's codec is checked against its extension below.
        let unsupported = project.export.codecsUnsupported(by: container).filter {
            !(container == .frames && $0.key == "video.codec")
        }
        var problems = unsupported.map { key, codec, needs in
            if needs == "frames" {
                let ext = ExportSettings.VideoCodec(rawValue: codec)?.frameExtensions.first ?? codec
                return "\(projectFile): export.\(key): \(codec) frames need a numbered-frames output such as "
                    + "out.%06d.\(ext) (got \(path))"
            }
            let extensions = needs.split(separator: " ").filter { $0 != "or" }.map { ".\($0.filter { $0 != "," })" }
                .joined(
                    separator: " or ")
            return "\(projectFile): export.\(key): \(codec) needs a \(extensions) output (got \(path))"
        }
        if container == .frames {
            problems += Self.frameProblems(path: path, ext: ext, project: project, projectFile: projectFile)
        } else if FramePattern.isPattern(path) {
            problems.append("\(path): a frame number field (%06d) is for numbered frames (.png, .tif, .dpx, .exr)")
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

    /// A numbered-frames output needs a number field in its name and the project's image
    /// codec of its extension (the codec is the project's: every worker encodes by it).
    private static func frameProblems(path: String, ext: String, project: Project, projectFile: String) -> [String] {
        guard FramePattern.isPattern(path) else {
            return ["\(path): numbered frames need a frame number field in the name, such as out.%06d.\(ext)"]
        }
        let codec = project.export.video.codec
        guard codec.frameExtensions.contains(ext) else {
            let wanted = ExportSettings.VideoCodec.allCases.first { $0.frameExtensions.contains(ext) }!
            return [
                "\(projectFile): export.video.codec: .\(ext) frames need codec \"\(wanted.rawValue)\" "
                    + "(got \(codec.rawValue))"
            ]
        }
        return []
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
        // Numbered frames are there when their first frame is.
        if !overwrite, container == .frames, let pattern = FramePattern(path: url.path),
            FileManager.default.fileExists(atPath: pattern.path(FramePattern.firstWritten))
        {
            return "\(pattern.path(FramePattern.firstWritten)): exists; pass --overwrite to replace the frames"
        }
        return nil
    }
}
