import ArgumentParser
import FarmCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a project and its media without rendering.",
        discussion: """
            Reports every problem with its JSON path and exits with code 2 if there is one.

            Example:
              farm validate project.json
            """
    )

    @OptionGroup var options: ProjectOptions

    func run() throws {
        let loaded = try options.load()
        let project = loaded.project
        print(
            "\(options.project): ok, \(project.frameCount) frames (\(Format.duration(project.duration))) at "
                + "\(project.output.width)x\(project.output.height) \(project.output.fps) fps, "
                + "\(project.tracks.count) tracks, \(project.assets.count) assets")
    }
}
