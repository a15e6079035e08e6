import ArgumentParser
import FarmCore
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow a job live until it ends.",
        discussion: """
            On a terminal the view redraws in place: an overall bar with frames, fps and ETA, a \
            bar per running chunk with its worker, the chunk counts and the newest error. It \
            refreshes when the farm's database announces a change (PostgreSQL LISTEN/NOTIFY), and \
            ends with the output path and a summary. The ETA divides the frames left by the \
            frames per second measured over the last 15 seconds.

            Its first line on standard error names the job's live preview, an HLS playlist of its \
            accepted chunks that grows as they come in, on the farm's HTTP API (`farm serve \
            --http`): the dashboard's job page plays it.

            Elsewhere (a pipe, a log) it prints one plain line per change; with --json, one \
            JobDetail object per change, as `farm status JOB --json` prints it (fields in \
            docs/cli.md; its fps and etaSeconds use the whole run's rate, not the 15 s window).

            Exit codes: 0 the job is done, 1 it failed or the farm is unreachable, 3 no such job, \
            4 it was cancelled, 64 a wrong command line; interrupted (Ctrl-C), 130; its output \
            closed (a pipe's reader left), 141.

            Examples:
              farm watch 12
              farm watch 12 --json | jq -c '.job | [.framesDone, .etaSeconds]'
            """
    )

    @Argument(help: "The job to follow.")
    var job: Int64

    @Flag(name: .long, help: "Print one JSON object per refresh.")
    var json = false

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        var display = makeJobDisplay(json: json, handle: .standardOutput)
        let detail = try database.withFarm { store in
            // Once the job is known: the coordinator's HTTP API (farm serve --http) serves it,
            // and its dashboard's job page plays it.
            if !json, try store.job(job) != nil {
                let line = "live preview: /api/jobs/\(job)/preview.m3u8 on the farm's HTTP API"
                FileHandle.standardError.writeUnlessClosed(Data((line + " (its job page: #/jobs/\(job))\n").utf8))
            }
            return try JobWatcher(store: store, job: job, output: STDOUT_FILENO).follow(on: &display)
        }
        throw FarmExit.of(jobState: detail.job.state)
    }
}
