import ArgumentParser
import FarmCore
import Foundation

/// The file a render writes (`OutputCheck`), for the command line: problems printed, exit 2.
struct OutputTarget {
    let url: URL
    let container: ExportSettings.Container

    /// Prints every problem naming the project or output and exits 2 when there is one.
    init(path: String, project: Project, projectFile: String) throws {
        let check = OutputCheck(path: path, project: project, projectFile: projectFile)
        if let note = check.note { FileHandle.standardError.writeUnlessClosed(Data("note: \(note)\n".utf8)) }
        guard check.problems.isEmpty, let container = check.container else {
            FileHandle.standardError.writeUnlessClosed(Data((check.problems.joined(separator: "\n") + "\n").utf8))
            throw FarmExit.badInput
        }
        url = check.url
        self.container = container
        self.check = check
    }

    private let check: OutputCheck

    /// Exits 2 when the output exists and may not be replaced, or is a symbolic link.
    func refuseToReplace(unless overwrite: Bool) throws {
        if let problem = check.replaceProblem(overwrite: overwrite) { try refuse(problem) }
    }

    /// Exits 2 when the coordinator may not write the output (`farm serve --output-root`).
    func refuseOutside(_ root: OutputRoot?) throws {
        if let problem = root?.problem(with: url.path) { try refuse(problem) }
    }

    private func refuse(_ problem: String) throws -> Never {
        FileHandle.standardError.writeUnlessClosed(Data((problem + "\n").utf8))
        throw FarmExit.badInput
    }
}
