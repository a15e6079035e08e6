import ArgumentParser
import FarmCore
import FarmStore

struct Retry: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a failed or cancelled job's unfinished chunks again, or one chunk of any job.",
        discussion: """
            Without --chunk: the job goes back to the queue and each of its unfinished chunks gets \
            three fresh tries; accepted chunks are kept. With --chunk N: that video chunk is \
            rendered again (say, after fixing a source file) and the output is joined anew. This \
            needs the job's accepted segments, which `farm serve` keeps in DATA/jobs/ID; chunks \
            whose segments are gone are rendered again too. A paused job stays paused until \
            `farm resume`.

            Exit codes: 0 queued, 1 farm unreachable, 3 no such job or chunk, 5 nothing to retry (the \
            job is done or still running, or the chunk is rendering now), 64 a wrong command line.

            Examples:
              farm retry 12
              farm retry 12 --chunk 7
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Option(name: .long, help: "Render only this video chunk again (its index, as `farm status JOB` shows).")
    var chunk: Int?

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        try StoredIntegers.checkChunk(chunk)
    }

    func run() throws {
        let record: JobRecord
        if let chunk {
            record = try database.withFarm { try $0.retry(job: job, chunk: chunk) }
            print("job \(job): chunk \(chunk) queued again; the output is joined once it is accepted")
        } else {
            let retried = try database.withFarm { try $0.retry(job: job) }
            record = retried.job
            print("job \(job) queued again: \(retried.chunks) chunk(s) to render")
        }
        // A retry does not undo a pause: the operator may have paused it for a reason.
        if record.paused { print("job \(job) is paused: nothing is rendered until `farm resume \(job)`") }
    }
}
