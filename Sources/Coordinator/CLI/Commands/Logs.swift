import ArgumentParser
import FarmCore
import Foundation

struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every attempt at a job's chunks: worker, outcome, time, speed and error text.",
        discussion: """
            With --chunk or --audio-block, each attempt's own log follows the table: the last \
            lines the worker logged for it (at most 200 lines or 64 kB), its own and FFmpeg's \
            warnings and errors, sent with its result or its failure.

            Outcomes: done (accepted), failed (the worker reported an error, or the segment \
            failed verification), lost (the worker went silent and its lease ran out), cancelled \
            (the job was cancelled, or a draining worker gave the chunk back) and running.

            Exit codes: 0 shown, 1 farm unreachable, 3 no such job or chunk, 64 a wrong command line.

            Examples:
              farm logs 12
              farm logs 12 --chunk 7
              farm logs 12 --audio-block 0
              farm logs 12 --json | jq '.[] | select(.outcome == "failed") | .error'
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Option(name: .long, help: "Only this video chunk's attempts, with their logs.")
    var chunk: Int?

    @Option(name: .long, help: "Only this audio block's attempts, with their logs.")
    var audioBlock: Int?

    @Flag(name: .long, help: "Print JSON (fields in docs/cli.md).")
    var json = false

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        try StoredIntegers.checkChunk(chunk)
        try StoredIntegers.checkChunk(audioBlock, flag: "--audio-block", noun: "an audio block index")
        if chunk != nil, audioBlock != nil {
            throw ValidationError("--chunk and --audio-block each choose one item: give one of them")
        }
    }

    func run() throws {
        let attempts = try database.withFarm { store in
            if let audioBlock { return try store.attemptLog(job: job, chunk: audioBlock, kind: .audio) }
            return try store.attemptLog(job: job, chunk: chunk)
        }
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
        for attempt in attempts where chunk != nil || audioBlock != nil {
            let name = "job \(job) \(StatusText.chunkName(attempt.kind, attempt.chunk)) attempt \(attempt.attempt)"
            print("\n\(name) on \(attempt.worker), \(attempt.outcome.rawValue):")
            guard let log = attempt.log, !log.isEmpty else {
                print("  (no log: the worker sends it with its result or failure)")
                continue
            }
            for line in log { print("  " + line) }
        }
    }
}
