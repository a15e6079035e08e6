import ArgumentParser
import FarmCore
import FarmMedia

/// The `farm` program; its executable only calls `FarmProgram.main()`.
public enum FarmProgram {
    public static func main() { Farm.main() }
}

struct Farm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm",
        abstract: "Render video-editing timelines, fast and frame-exact.",
        discussion: """
            A project file (JSON, see docs/project-format.md) describes tracks of clips, stills and \
            sound with trims, speed changes, picture-in-picture and keyframed opacity, crop and volume.

            Every command that talks to a farm takes --database (or $DATABASE_URL), else uses the \
            private PostgreSQL of the --data folder. docs/cli.md has the JSON fields and exit codes.

            Exit codes: 0 ok, 1 failed (or the farm is unreachable), 2 bad project or media, \
            3 no such job, chunk or worker, 4 cancelled, 5 not possible in the job's state, \
            64 a wrong command line.

            Shell completion: farm --generate-completion-script bash > /etc/bash_completion.d/farm \
            (also zsh and fish).

            Examples:
              farm validate project.json
              farm render project.json -o final.mp4
              farm render project.json -o preview.mp4 --local --frames 300..450
              farm serve --database postgresql://farm@db/farm
              farm submit project.json -o /srv/out/final.mp4 --watch
              farm status
              farm watch 12
              farm workers
            """,
        version: MediaLibraries.versionText(FarmVersion.current),
        subcommands: [
            Render.self, Batch.self, Validate.self, Import.self, Diff.self, Submit.self, Upload.self, Fetch.self,
            Serve.self, Status.self,
            Watch.self,
            Wait.self,
            Prune.self, Tokens.self, Workers.self,
            Logs.self, QC.self, Trace.self,
            Cancel.self,
            Pause.self, Resume.self, Priority.self, Retry.self, Keys.self, Probe.self, VerifySegments.self,
            ProbeMedia.self, HTTPRoutes.self,
        ]
    )

    static func main() {
        StandardDescriptors.openMissing()
        ClosedOutput.ignoreBrokenPipes()
        main(nil)
    }
}
