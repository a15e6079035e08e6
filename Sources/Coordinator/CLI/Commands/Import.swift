import ArgumentParser
import FarmCore
import FarmInterchange
import Foundation

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn an OpenTimelineIO timeline (.otio) into a farm project.",
        discussion: """
            Reads the timeline an editor exported (DaVinci Resolve writes .otio; Premiere, Final Cut, \
            Avid and EDLs convert with otioconvert), checks it against its media like `farm validate`, \
            and writes the farm's project. Prints what it imported, and one note per thing it could \
            not carry over (a marker, an effect, a generator) with what it did instead. docs/otio.md \
            has the mapping.

            `farm validate`, `render` and `submit` take an .otio directly with the same options.

            Examples:
              farm import cut.otio -o cut.json
              farm import cut.otio -o cut.json --relink 'D:/media=/mnt/media' --canvas 1920x1080@24000/1001
            """
    )

    @OptionGroup var options: ProjectOptions

    @Option(name: .shortAndLong, help: "The farm project to write (JSON).")
    var output: String

    func run() throws {
        guard OTIOImport.handles(options.project) else {
            FileHandle.standardError.writeUnlessClosed(Data("\(options.project): farm import reads .otio files\n".utf8))
            throw FarmExit.badInput
        }
        // Relative media paths stay relative where the project lands beside the timeline (or
        // under --media-root); elsewhere they would point nowhere.
        let destination = URL(fileURLWithPath: output).standardizedFileURL
        let beside =
            destination.deletingLastPathComponent().path
            == URL(fileURLWithPath: options.project).standardizedFileURL.deletingLastPathComponent().path
        let loaded = try options.load(absoluteMediaPaths: options.mediaRoot == nil && !beside)
        guard let imported = loaded.imported else { throw FarmExit.badInput }
        let file = AtomicFile(destination: destination)
        do {
            try Data(imported.text.utf8).write(to: file.temporary)
            try file.commit()
        } catch {
            file.discard()
            FileHandle.standardError.writeUnlessClosed(
                Data("\(output): cannot write: \(error.localizedDescription)\n".utf8))
            throw FarmExit.failed
        }
        print("\(options.project) -> \(output)")
        for line in imported.summary { print("  \(line)") }
        if !imported.notes.isEmpty { print("  \(Format.count(imported.notes.count, "note")) above") }
    }
}
