import ArgumentParser
import FarmCore
import FarmStore
import Foundation

struct Trace: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Where a job's time went: every attempt's phases, every worker slot's renders and idle time.",
        discussion: """
            Each accepted attempt records when the coordinator sent it, when its worker received \
            it, began and ended its render, when its upload was complete, verified and accepted. \
            The worker sends spans, not clock readings, and the coordinator places them back \
            from when the upload ended, so the phases of an attempt add up to its time from sent \
            to accepted whatever the machines' clocks say. The job's join and QC are timed too.

            The text shows the phases added over the job's attempts, one row per worker slot \
            (its renders along the time from the first assignment, its share of that time spent \
            rendering until the last render began, and any time it idled while a task it could \
            take was still queued), then the coordinator's tail: the join and the QC.

            Exit codes: 0 printed, 1 farm unreachable, 3 no such job, 64 a wrong command line.

            Examples:
              farm trace 12
              farm trace 12 --json | jq .summary.slots
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Flag(name: .long, help: "Print JSON: the trace's instants and its summary (fields in docs/cli.md).")
    var json = false

    @Option(name: .long, help: "Columns of the slot rows' time axis (20 to 400).")
    var width = 60

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        guard (20...400).contains(width) else { throw ValidationError("--width must be 20 to 400 (got \(width))") }
    }

    func run() throws {
        let trace = try FarmExit.guarding {
            try database.withFarm { store in
                guard let trace = try store.trace(job: job) else { throw FarmControlError.noSuchJob(job) }
                return trace
            }
        }
        if json {
            try JSONOutput.print(JobTrace.Report(trace))
        } else {
            print(TraceText.text(trace, width: width))
        }
    }
}
