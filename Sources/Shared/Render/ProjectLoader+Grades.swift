import FarmCore
import Foundation

extension ProjectLoader {
    /// Reads every `.cube` file the project's grades name, once each: confined like the assets
    /// (with a media root), parsed, and hashed. Returns the project with each reference's digest
    /// set (so chunk keys change when a LUT does) and the LUTs by path; a file that fails is
    /// reported once, at the first JSON path naming it, with its line.
    func loadLUTs(_ project: Project, log: DiagnosticLog) -> (project: Project, luts: [String: CubeLUT]) {
        var project = project
        var luts: [String: CubeLUT] = [:]
        var digests: [String: String] = [:]
        var failed: Set<String> = []
        let root = confined ? mediaRoot.map { PathConfinement.resolved($0.path) } : nil
        func load(_ grade: inout ColourGrade?, at path: String) {
            guard let reference = grade?.lut else { return }
            let file = reference.path
            if let digest = digests[file] {
                grade?.lut?.digest = digest
                return
            }
            guard !failed.contains(file) else { return }
            do {
                let (lut, digest) = try Self.readLUT(file, root: root)
                luts[file] = lut
                digests[file] = digest
                grade?.lut?.digest = digest
            } catch {
                failed.insert(file)
                log.add("\(path).grade.lut", "\(error)")
            }
        }
        load(&project.output.grade, at: "output")
        for trackIndex in project.tracks.indices {
            load(&project.tracks[trackIndex].grade, at: "tracks[\(trackIndex)]")
            for itemIndex in project.tracks[trackIndex].items.indices {
                load(
                    &project.tracks[trackIndex].items[itemIndex].grade, at: "tracks[\(trackIndex)].items[\(itemIndex)]")
            }
        }
        return (project, luts)
    }

    /// The LUTs of a project already checked (a worker's), or a `ProjectError` naming the first
    /// that cannot be read.
    public func loadLUTs(_ project: Project, file: String) throws -> (project: Project, luts: [String: CubeLUT]) {
        let log = DiagnosticLog()
        let loaded = loadLUTs(project, log: log)
        guard log.isEmpty else { throw ProjectError(file: file, diagnostics: log.diagnostics) }
        return loaded
    }

    private static func readLUT(_ file: String, root: String?) throws -> (CubeLUT, String) {
        if let root, !PathConfinement.contains(root: root, PathConfinement.resolved(file)) {
            throw LUTFileError(
                "\(file) is outside the media root \(root); LUTs must stay inside it (no absolute paths elsewhere, "
                    + "no .., no links out)")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw LUTFileError("file not found: \(file)")
        }
        guard !isFolder.boolValue,
            (try? URL(fileURLWithPath: file).resolvingSymlinksInPath().resourceValues(forKeys: [.isRegularFileKey])
                .isRegularFile) == true,
            let data = FileManager.default.contents(atPath: file)
        else { throw LUTFileError("not a readable regular file: \(file)") }
        guard let text = String(data: data, encoding: .utf8) else { throw LUTFileError("\(file): not a text file") }
        let lut = try CubeLUT.parse(text, file: file)
        let hash = SHA256()
        hash.update(data)
        return (lut, hash.finish())
    }
}

/// A LUT file that cannot be used, said as the message a diagnostic prints.
struct LUTFileError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
