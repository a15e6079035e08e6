import ArgumentParser
import FarmCore
import Foundation

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the workers, or drain one.",
        discussion: """
            A worker's id is its --id, else HOST-PID (farm-worker --help).

            Exit codes: 0 done, 1 farm unreachable, 3 no such worker, 64 a wrong command line.

            Examples:
              farm workers
              farm workers --json | jq '.[] | select(.state == "lost") | .id'
              farm workers drain render-07@node7
              farm workers undrain render-07@node7
            A worker's id is what `farm workers` lists: a worker started with a key is NAME@HOST \
            (its key's name and its machine's), one without is its --id, or HOST-PID.
            """,
        subcommands: [List.self, Drain.self, Undrain.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Every worker: host, state, current chunk, heartbeat, chunks done, fps now and on average, tags, kind.",
            discussion: """
                State is idle, rendering, lost (silent for longer than the lease) or draining; \
                unknown while no coordinator serves the farm (a warning line says since when).

                KIND names what decides the bytes a worker encodes (farm release, renderer, \
                FFmpeg libraries, x264 instruction set, fonts): one job's chunks are all rendered \
                by workers of one kind, so its output never depends on which machines took them.

                Examples:
                  farm workers
                  farm workers list --json
                """
        )

        @Flag(name: .long, help: "Print JSON (fields in docs/cli.md).")
        var json = false

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            let (workers, liveness) = try database.withFarm { (try $0.workerStatuses(), try $0.coordinatorLiveness()) }
            if json {
                try JSONOutput.print(workers)
                return
            }
            guard !workers.isEmpty else {
                print("no workers have connected yet")
                return
            }
            var table = TextTable(
                ["WORKER", "HOST", "STATE", "CURRENT", "HEARTBEAT", "DONE", "FPS", "AVG FPS", "SLOTS", "TAGS", "KIND"],
                numeric: [5, 6, 7, 8])
            for worker in workers {
                let current = worker.current.map { "job \($0.job) \(StatusText.chunkName($0.kind, $0.chunk))" }
                // Without a coordinator nobody hears the workers: their states are as it left them.
                let state = liveness.isServing || worker.state == .draining ? worker.state.rawValue : "unknown"
                table.add([
                    worker.id, worker.host, state,
                    current.isEmpty ? "-" : current.joined(separator: ", "),
                    StatusText.age(seconds: worker.secondsSinceHeartbeat), String(worker.chunksDone),
                    StatusText.fps(worker.currentFps), StatusText.fps(worker.averageFps), String(worker.slots),
                    worker.tags.isEmpty ? "-" : worker.tags.joined(separator: ","),
                    "\(worker.kind) (\(worker.kindSummary))",
                ])
            }
            print(table.text)
            if let warning = liveness.warning { print("warning: \(warning); worker states are unknown") }
        }
    }

    struct Drain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a worker finish the chunk it renders and take no more.",
            discussion: """
                A chunk it holds but has not started goes back to the queue at its next heartbeat. \
                Stop the worker once `farm workers` shows it with no current chunk.

                Example:
                  farm workers drain render-07@node7
                """
        )

        @Argument(help: "The worker's id, as `farm workers` lists it (a keyed worker's is NAME@HOST).")
        var worker: String

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            try database.withFarm { try $0.setDraining(worker: worker, true) }
            print("worker \(worker) is draining: it finishes its chunk and takes no more")
        }
    }

    struct Undrain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a drained worker take chunks again.",
            discussion: """
                Example:
                  farm workers undrain render-07@node7
                """
        )

        @Argument(help: "The worker's id, as `farm workers` lists it (a keyed worker's is NAME@HOST).")
        var worker: String

        @OptionGroup(title: "Farm state") var database: DatabaseOptions

        func run() throws {
            try database.withFarm { try $0.setDraining(worker: worker, false) }
            print("worker \(worker) takes chunks again")
        }
    }
}
