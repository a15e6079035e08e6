import ArgumentParser
import FarmCore
import FarmMedia
import FarmRender
import Foundation

/// Options every command that reads a project shares.
struct ProjectOptions: ParsableArguments {
    @Argument(help: "The project file (JSON).")
    var project: String

    @Option(
        name: .long,
        help: """
            Folder that relative asset paths are resolved against (default: the project file's folder). \
            Given, it also confines them: an asset outside it (absolute, .., or a link out) is refused.
            """)
    var mediaRoot: String?

    @Flag(name: .long, help: "Show FFmpeg's own warnings.")
    var verbose = false

    /// Loads and checks the project; on bad input prints every problem and exits with code 2.
    func load() throws -> LoadedProject {
        FFmpegLog.configure(verbose: verbose)
        do {
            // A media root given here also confines the assets to it.
            return try ProjectLoader(mediaRoot: mediaRoot.map { URL(fileURLWithPath: $0) }, confined: true)
                .load(file: project)
        } catch let error as ProjectError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw FarmExit.badInput
        }
    }
}
