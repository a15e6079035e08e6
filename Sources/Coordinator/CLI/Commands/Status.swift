import ArgumentParser
import FarmCore
import FarmStore
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List jobs, or show one job's chunks, errors and output.",
        discussion: """
            Without JOB: every job, newest first, with its progress, measured fps, ETA and chunks \
            by state. With JOB: that job's chunks rendering now or failed, the first 100 of them \
            (frame range, state, worker, attempt, fps, time; --all for every chunk, as --json \
            gives), its newest errors \
            and its output. ETA and fps come from frames rendered over time, \
            not from chunk counts. A problem that holds the whole farm up, such as the \
            coordinator's data folder being full, is shown as a warning until it passes.

            Exit codes: 0 shown, 1 farm unreachable, 3 no such job, 64 a wrong command line.

            Examples:
              farm status
              farm status 12
              farm status 12 --all
              farm status --json | jq '.[] | select(.state == "running") | .etaSeconds'
            """
    )

    @Argument(help: "A job id; without one, all jobs.")
    var job: Int64?

    @Option(name: .long, help: "Show at most this many jobs, the newest.")
    var limit = 50

    @Flag(name: .long, help: "With JOB: list every chunk, not only those rendering or failed.")
    var all = false

    @Flag(name: .long, help: "Print JSON (fields in docs/cli.md); with JOB, every chunk.")
    var json = false

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be >= 1 (got \(limit))") }
        if all, job == nil {
            throw ValidationError("--all lists one job's chunks: give the job, as in `farm status 12 --all`")
        }
    }

    func run() throws {
        if let job {
            let (detail, reused) = try database.withFarm {
                (
                    try $0.jobDetail(job, everyChunk: all || json, limit: all || json ? nil : Self.listedChunks),
                    try json ? 0 : $0.reusedChunkCount(job: job)
                )
            }
            if json { try JSONOutput.print(detail) } else { print(Self.text(detail, reused: reused)) }
        } else {
            let (jobs, usage, cache) = try database.withFarm {
                (try $0.jobStatuses(limit: limit), try $0.segmentUsage(), try $0.cacheUsage())
            }
            if json { try JSONOutput.print(jobs) } else { print(jobs.isEmpty ? "no jobs" : Self.text(jobs)) }
            if !json && usage.bytes > 0 {
                print(
                    "segments: \(Format.bytes(Int(usage.bytes))) kept for \(Format.count(usage.jobs, "finished job")) "
                        + "in the coordinator's data folder (farm prune frees them)")
            }
            if !json && cache.segments > 0 {
                print(
                    "cache: \(Format.bytes(Int(cache.bytes))) in \(Format.count(cache.segments, "segment")) "
                        + "that later jobs reuse (farm prune --cache empties it)")
            }
        }
    }

    static func text(_ jobs: [JobStatus]) -> String {
        var table = TextTable(
            [
                "JOB", "NAME", "STATE", "PROGRESS", "FRAMES", "FPS", "ETA", "SUBMITTED", "QUEUED", "RUNNING", "DONE",
                "FAILED",
            ],
            numeric: [0, 3, 4, 5, 6, 8, 9, 10, 11])
        for job in jobs {
            table.add([
                String(job.id), job.name, StatusText.state(job), StatusText.progress(job),
                "\(job.framesDone)/\(job.frameCount)",
                StatusText.fps(job.fps), StatusText.eta(job.etaSeconds), StatusText.age(job.submittedAt),
                String(job.chunks.queued), String(job.chunks.running), String(job.chunks.done),
                String(job.chunks.failed),
            ])
        }
        var text = table.text
        for job in jobs { if let waiting = job.waitingFor { text += "\njob \(job.id) waits: \(waiting)" } }
        // The warning is the farm's, the same on every running job: say it once, under the table.
        if let warning = jobs.lazy.compactMap(\.warning).first { text += "\nwarning: \(warning)" }
        return text
    }

    /// Chunks rendering or failed that the text lists: a screenful tells what a farm of a
    /// thousand workers is doing, and `--all` or `--json` give every one.
    static let listedChunks = 100

    static func text(_ detail: JobDetail, reused: Int = 0) -> String {
        let job = detail.job
        var lines = [
            "job \(job.id) \(job.name): \(StatusText.state(job)), priority \(job.priority)",
            "  progress  \(StatusText.progress(job))  \(job.framesDone)/\(job.frameCount) frames  "
                + "\(StatusText.fps(job.fps)) fps  ETA \(StatusText.eta(job.etaSeconds))",
            "  chunks    \(StatusText.counts(job.chunks, reused: reused))",
            "  submitted \(job.submittedAt)" + (job.finishedAt.map { ", finished \($0)" } ?? ""),
            "  output    \(job.output)"
                + (job.state == .done ? "" : job.isFinished ? " (not written)" : " (when done)"),
        ]
        if !job.requires.isEmpty { lines.append("  requires  tags \(job.requires.joined(separator: ","))") }
        if let kind = job.renderKind { lines.append("  renders   on \(kind)") }
        if let waiting = job.waitingFor { lines.append("  waiting   \(waiting)") }
        if let error = job.error { lines.append("  error     \(error)") }
        if let warning = job.warning { lines.append("  warning   \(warning)") }
        let unlisted = job.chunks.total - detail.chunks.count
        let active = job.chunks.running + job.chunks.failed
        if detail.chunks.count < active, detail.chunks.count < job.chunks.total {
            lines.append(
                "  listed    the first \(detail.chunks.count) of \(active) chunks rendering or failed "
                    + "(farm status \(job.id) --all lists every chunk)")
        } else if unlisted > 0 {
            lines.append(
                "  listed    the chunks rendering or failed; \(unlisted) more are done or "
                    + (job.chunks.unfinished > 0 ? "unfinished " : "queued ")
                    + "(farm status \(job.id) --all lists every chunk)")
        }
        var table = TextTable(
            ["CHUNK", "SPAN", "STATE", "WORKER", "ATTEMPT", "DONE", "SPEED", "TIME"], numeric: [4, 5, 6, 7])
        for chunk in detail.chunks {
            table.add([
                StatusText.chunkName(chunk.kind, chunk.index), StatusText.range(chunk), chunk.state.rawValue,
                chunk.worker ?? "-",
                String(chunk.attempt), StatusText.done(chunk),
                StatusText.speed(fps: chunk.fps, soundSeconds: chunk.soundSeconds, seconds: chunk.seconds),
                chunk.seconds.map(Format.seconds) ?? "-",
            ])
        }
        // A job with no chunk rendering or failed lists none: no header over an empty table.
        if !detail.chunks.isEmpty {
            lines.append("")
            lines.append(table.text)
        }
        if !detail.errors.isEmpty {
            lines.append("")
            lines.append("newest errors (farm logs \(job.id) has them all):")
            lines += detail.errors.map { "  " + StatusText.error($0) }
        }
        return lines.joined(separator: "\n")
    }
}
