import ArgumentParser
import FarmCore
import Foundation

/// The file a render writes: its container from the extension, checked against the codecs, in
/// a folder that exists.
///
/// The extension decides, as with every tool that writes media: `-o cut.mov` is a MOV file. An
/// extension that names no container the farm writes (`.avi`, `.gif`, none) is refused rather
/// than written as something else under that name; one that differs from the project's
/// `export.container` wins, and a note says so.
struct OutputTarget {
    let url: URL
    let container: ExportSettings.Container

    /// Prints every problem naming the project or output and exits 2 when there is one.
    init(path: String, project: Project, projectFile: String) throws {
        url = URL(fileURLWithPath: path).standardizedFileURL
        let ext = url.pathExtension.lowercased()
        let supported = ExportSettings.Container.allCases.map { ".\($0.rawValue)" }.joined(separator: ", ")
        guard let container = ExportSettings.Container(rawValue: ext) else {
            let named =
                ext.isEmpty
                ? "has no extension" : "ends in .\(url.pathExtension), which is no container the farm writes"
            FileHandle.standardError.write(Data("\(path): \(named); use one of \(supported)\n".utf8))
            throw FarmExit.badInput
        }
        self.container = container
        if container != project.export.container {
            FileHandle.standardError.write(
                Data(
                    ("note: writing \(container.rawValue) as \(path) asks (\(projectFile): export.container is "
                        + "\(project.export.container.rawValue))\n").utf8))
        }
        var problems = project.export.codecsUnsupported(by: container).map { key, codec, needs in
            let extensions = needs.split(separator: " ").filter { $0 != "or" }.map { ".\($0)" }.joined(
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
        if !problems.isEmpty {
            FileHandle.standardError.write(Data((problems.joined(separator: "\n") + "\n").utf8))
            throw FarmExit.badInput
        }
    }

    /// Exits 2 when the output exists and may not be replaced, or is a symbolic link (writing
    /// through one could replace any file the coordinator can write).
    func refuseToReplace(unless overwrite: Bool) throws {
        if PathConfinement.isSymbolicLink(url.path) {
            try refuse("\(url.path): is a symbolic link; the farm never writes through one")
        } else if !overwrite, FileManager.default.fileExists(atPath: url.path) {
            try refuse("\(url.path): exists; pass --overwrite to replace it")
        }
    }

    /// Exits 2 when the coordinator may not write the output (`farm serve --output-root`).
    func refuseOutside(_ root: OutputRoot?) throws {
        if let problem = root?.problem(with: url.path) { try refuse(problem) }
    }

    private func refuse(_ problem: String) throws -> Never {
        FileHandle.standardError.write(Data((problem + "\n").utf8))
        throw FarmExit.badInput
    }
}
