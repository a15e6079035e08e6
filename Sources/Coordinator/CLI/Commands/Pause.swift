import ArgumentParser
import FarmCore

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Assign no more of a job's chunks until it is resumed.",
        discussion: """
            Chunks already rendering finish and are kept; the workers move on to other jobs. \
            The output is the same as if the job had never paused.

            Exit codes: 0 paused, 1 farm unreachable, 3 no such job, 5 the job has ended, 64 a wrong \
            command line.

            Example:
              farm pause 12
            """
    )

    @Argument(help: "The job to pause.")
    var job: Int64

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        let record = try database.withFarm { try $0.setPaused(job: job, true) }
        print("job \(record.id) paused")
    }
}
