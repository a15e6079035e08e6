import ArgumentParser
import FarmCore
import Foundation

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a project and its media without rendering.",
        discussion: """
            Reports every problem with its JSON path and exits with code 2 if there is one. Warns, once \
            per asset, of each conversion the render makes (HDR to SDR, 10 to 8 bits, 5.1 to stereo, \
            interlaced, anamorphic); `farm probe` shows the media itself.

            Example:
              farm validate project.json
            """
    )

    @OptionGroup var options: ProjectOptions

    func run() throws {
        let loaded = try options.load()
        let project = loaded.project
        // What the render will change in each asset, once per asset.
        for (id, info) in loaded.media.sorted(by: { $0.key < $1.key }) {
            for note in MediaConversions.notes(info, output: project.output) {
                let path = project.assets[id].map { " (\($0.path))" } ?? ""
                FileHandle.standardError.writeUnlessClosed(
                    Data("\(options.project): warning: assets.\(id)\(path): \(note)\n".utf8))
            }
        }
        print(
            "\(options.project): ok, \(project.frameCount) frames (\(Format.duration(project.duration))) at "
                + "\(project.output.width)x\(project.output.height) \(project.output.fps) fps, "
                + "\(project.tracks.count) tracks, \(project.assets.count) assets")
    }
}
