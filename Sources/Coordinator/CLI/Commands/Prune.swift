import ArgumentParser
import FarmCore
import FarmStore
import Foundation

struct Prune: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Free the disk finished jobs' segments hold in the coordinator's data folder.",
        discussion: """
            The coordinator keeps each job's accepted segments (DATA/jobs/N) after the join, so \
            `farm retry JOB --chunk N` can render one chunk again and rejoin. This asks it to \
            remove them for finished jobs (done, failed or cancelled), never a running job's; it \
            does so within seconds, on its own machine, and `farm status` then shows the space \
            freed. A pruned job can still be retried: its missing segments are rendered again. \
            `farm serve --keep-segments 2d` prunes on its own.

            --cache empties the segment cache instead: segments kept by their key so that later \
            jobs reuse them (`farm serve --cache-size` bounds it). No lookup finds them from \
            then on; the coordinator removes the files within seconds.

            Exit codes: 0 asked, 1 farm unreachable, 3 no such job, 5 the job has not ended, \
            64 a wrong command line.

            Examples:
              farm prune                      # jobs that ended more than 7 days ago
              farm prune --older-than 12h
              farm prune --job 12
              farm prune --cache
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp("Jobs that ended longer ago than this (e.g. 7d, 12h, 30m).", valueName: "DURATION"))
    var olderThan: Duration?

    @Option(name: .long, help: "This job only, whenever it ended.")
    var job: Int64?

    @Flag(name: .long, help: "Empty the segment cache (what later jobs would reuse) instead.")
    var cache = false

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        if cache && (job != nil || olderThan != nil) {
            throw ValidationError("--cache empties the whole cache; it takes no --job or --older-than")
        }
    }

    func run() throws {
        if cache {
            let (cleared, liveness) = try database.withFarm { (try $0.clearCache(), try $0.coordinatorLiveness()) }
            print(
                "segment cache emptied: \(Format.count(cleared.segments, "segment")), "
                    + Format.bytes(Int(cleared.bytes))
            )
            if let warning = liveness.warning { print("warning: \(warning); its files go when it does") }
            return
        }
        // A job named alone goes whatever its age; otherwise a week unless told.
        let age = job == nil ? (olderThan?.seconds ?? 7 * 86400) : olderThan?.seconds
        let (asked, liveness) = try database.withFarm {
            (try $0.requestPrune(job: job, olderThan: age), try $0.coordinatorLiveness())
        }
        guard !asked.isEmpty else {
            print(job.map { "job \($0): its segments are gone already" } ?? "no finished job to prune")
            return
        }
        let measured = asked.compactMap(\.bytes).reduce(0, +)
        let jobs = asked.map { String($0.job) }.joined(separator: ", ")
        print("\(Format.count(asked.count, "job")) to prune (\(jobs)): \(Format.bytes(Int(measured))) of segments")
        if let warning = liveness.warning {
            print("warning: \(warning); their segments go when it does")
        } else {
            print("the coordinator removes them within seconds")
        }
    }
}
