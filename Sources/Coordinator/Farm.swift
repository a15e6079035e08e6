import ArgumentParser
import Shared

@main
struct Farm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm",
        abstract: "Render video-editing timelines, fast and frame-exact.",
        discussion: """
            A project file (JSON, see docs/project-format.md) describes tracks of clips, stills and
            sound with trims, speed changes, picture-in-picture and keyframed opacity, crop and volume.

            Examples:
              farm validate project.json
              farm render project.json -o final.mp4
              farm render project.json -o preview.mp4 --local --frames 300..450
              farm serve --database postgresql://farm@db/farm
              farm submit project.json -o /srv/out/final.mp4 --database postgresql://farm@db/farm
            """,
        subcommands: [Render.self, Validate.self, Submit.self, Serve.self]
    )
}
