import ArgumentParser
import FarmCore

struct Priority: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a job's priority: higher runs first.",
        discussion: """
            Free workers take the next chunk of the highest-priority job, then of the oldest job \
            among equals. Chunks already rendering are not interrupted.

            Exit codes: 0 changed, 1 farm unreachable, 3 no such job, 5 the job has ended, 64 a wrong \
            command line.

            Examples:
              farm priority 12 10
              farm priority 12 -- -5
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Argument(help: "The new priority (default for new jobs: 0).")
    var priority: Int

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        try StoredIntegers.checkPriority(priority)
    }

    func run() throws {
        let record = try database.withFarm { try $0.setPriority(job: job, priority) }
        print("job \(record.id) priority \(record.priority)")
    }
}
