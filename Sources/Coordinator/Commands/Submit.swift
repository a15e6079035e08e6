import ArgumentParser
import Foundation
import Shared

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue a project for the farm's coordinator and print the job id.",
        discussion: """
            The project is checked first (exit 2 on any problem, nothing queued). Relative asset
            paths resolve on each worker against its --media-root, else against this project
            file's folder, which then must be the same path on every machine.

            Examples:
              farm submit project.json -o /srv/out/final.mp4 --database postgresql://farm@db/farm
              farm submit project.json -o final.mov --chunk-seconds 5 --priority 10
            """
    )

    @OptionGroup var options: ProjectOptions

    @Option(name: [.short, .long], help: "The file the coordinator writes (a path on the coordinator's machine).")
    var output: String

    @OptionGroup(title: "Chunks") var chunking: ChunkOptions

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    @Option(name: .long, help: "Higher runs first; equal priorities run in submission order.")
    var priority = 0

    func run() throws {
        let loaded = try options.load()
        let target = try OutputTarget(path: output, project: loaded.project, projectFile: options.project)
        let submission = try JobSubmission(
            loaded: loaded, file: options.project, mediaRoot: options.mediaRoot.map { URL(fileURLWithPath: $0) },
            output: target.url, container: target.container, chunkSize: chunking.size, priority: priority)
        let (url, server) = try database.open()
        defer { server?.stop() }
        let id = try FarmStore(url: url).submit(submission)
        print(id)
    }
}
