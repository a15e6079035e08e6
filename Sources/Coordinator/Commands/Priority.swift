import ArgumentParser
import Shared

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

    func validate() throws {
        try Self.check(priority)
    }

    /// Priorities are stored as a PostgreSQL integer.
    static func check(_ priority: Int) throws {
        guard Int(Int32.min)...Int(Int32.max) ~= priority else {
            throw ValidationError("a priority must lie in \(Int32.min)...\(Int32.max) (got \(priority))")
        }
    }

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        let record = try database.withFarm { try $0.setPriority(job: job, priority) }
        print("job \(record.id) priority \(record.priority)")
    }
}
