import ArgumentParser
import FarmCore

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop a job: its workers drop its chunks and no output is written.",
        discussion: """
            The coordinator tells every worker rendering one of the job's chunks to stop (within \
            a second); the job is never joined. A cancelled job can be started again with \
            `farm retry`, which keeps the chunks already accepted.

            Exit codes: 0 cancelled, 1 farm unreachable, 3 no such job, 5 the job had already ended, \
            64 a wrong command line.

            Example:
              farm cancel 12
            """
    )

    @Argument(help: "The job to cancel.")
    var job: Int64

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        let record = try database.withFarm { try $0.cancel(job: job) }
        print("job \(record.id) cancelled")
    }
}
