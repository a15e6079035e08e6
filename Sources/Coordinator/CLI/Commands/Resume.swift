import ArgumentParser
import FarmCore

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let a paused job's chunks be assigned again.",
        discussion: """
            Exit codes: 0 resumed, 1 farm unreachable, 3 no such job, 5 the job has ended, 64 a wrong \
            command line.

            Example:
              farm resume 12
            """
    )

    @Argument(help: "The job to resume.")
    var job: Int64

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        let record = try database.withFarm { try $0.setPaused(job: job, false) }
        print("job \(record.id) resumed")
    }
}
