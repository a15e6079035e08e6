import ArgumentParser
import FarmCore
import FarmStore
import Foundation

struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Block until a job ends; exit with its outcome.",
        discussion: """
            For scripts: prints nothing while the job runs (but a warning on standard error when \
            no coordinator serves the farm), then the job's summary line.

            Exit codes: 0 the job is done, 1 it failed (or the farm is unreachable), 3 no such \
            job, 4 it was cancelled; interrupted (Ctrl-C), 130.

            Example:
              farm submit cut.json -o /srv/out/cut.mp4 | xargs farm wait && publish /srv/out/cut.mp4
            """
    )

    @Argument(help: "The job to wait for.")
    var job: Int64

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        var display = QuietJobDisplay()
        let detail = try database.withFarm { try JobWatcher(store: $0, job: job).follow(on: &display) }
        throw FarmExit.of(jobState: detail.job.state)
    }
}

/// Silent while the job runs, but for a warning (said once, until it changes); the summary at
/// the end.
struct QuietJobDisplay: JobDisplay {
    private var lastWarning: String?

    mutating func show(_ detail: JobDetail, reused: Int, fps: Double?, eta: Double?) {
        guard detail.job.warning != lastWarning else { return }
        lastWarning = detail.job.warning
        if let warning = lastWarning {
            FileHandle.standardError.writeUnlessClosed(Data("job \(detail.job.id) warning: \(warning)\n".utf8))
        }
    }

    mutating func finish(_ detail: JobDetail, reused: Int) {
        print(StatusText.summary(detail, reused: reused))
    }
}
