import ArgumentParser
import FarmCore
import Foundation

struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every attempt at a job's chunks: worker, outcome, time, fps and error text.",
        discussion: """
            Outcomes: done (accepted), failed (the worker reported an error, or the segment \
            failed verification), lost (the worker went silent and its lease ran out), cancelled \
            (the job was cancelled, or a draining worker gave the chunk back) and running.

            Exit codes: 0 shown, 1 farm unreachable, 3 no such job or chunk, 64 a wrong command line.

            Examples:
              farm logs 12
              farm logs 12 --chunk 7
              farm logs 12 --json | jq '.[] | select(.outcome == "failed") | .error'
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Option(name: .long, help: "Only this video chunk's attempts.")
    var chunk: Int?

    @Flag(name: .long, help: "Print JSON (fields in docs/cli.md).")
    var json = false

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        try StoredIntegers.checkChunk(chunk)
    }

    func run() throws {
        let attempts = try database.withFarm { try $0.attemptLog(job: job, chunk: chunk) }
        if json {
            try JSONOutput.print(attempts)
            return
        }
        guard !attempts.isEmpty else {
            print("job \(job): no attempts yet")
            return
        }
        var table = TextTable(
            ["CHUNK", "ATTEMPT", "WORKER", "OUTCOME", "STARTED", "TIME", "MADE", "SPEED", "ERROR"],
            numeric: [1, 5, 6, 7])
        for attempt in attempts {
            table.add([
                StatusText.chunkName(attempt.kind, attempt.chunk), String(attempt.attempt), attempt.worker,
                attempt.outcome.rawValue,
                attempt.startedAt, Format.seconds(attempt.seconds), StatusText.made(attempt),
                StatusText.speed(fps: attempt.fps, soundSeconds: attempt.soundSeconds, seconds: attempt.seconds),
                attempt.error ?? "",
            ])
        }
        print(table.text)
    }
}
