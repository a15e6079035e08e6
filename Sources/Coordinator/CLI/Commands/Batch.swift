import ArgumentParser
import FarmCore
import FarmRender
import FarmStore
import Foundation

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a template once per row of a CSV file, on a farm of its own.",
        discussion: """
            The project is a template (docs/templates.md): its fields are declared under "fields" \
            and used as {{ NAME }} in its strings. The CSV's header names fields; each row after \
            it is one render, its cells read as their fields' types (--merge and --set give values \
            every row shares; a row's own cells win). --output names each row's file with the \
            row's columns and {{ row }}, the row's number (1 for the first after the header).

            Every row is checked first, against the template and its media: a bad row is reported \
            by its number and the JSON path of the problem (rows.csv: row 7: PRICE: expected a \
            number for PRICE, got "abc"), and the others render. The jobs are one batch on one \
            farm, started as `farm render` starts one (--workers, --data, --database); each is \
            named TEMPLATE row N, and each row's outcome is printed as it ends.

            Exit codes: 0 every row rendered, 1 a row failed to render, 2 a row was refused (the \
            others rendered) or the template, CSV or --output is wrong, 4 cancelled, 64 a wrong \
            command line, 130 or 143 interrupted.

            Examples:
              farm batch promo.json cities.csv -o 'out/promo-{{ CITY }}.mp4'
              farm batch promo.json cities.csv -o 'out/{{ row }}.mp4' --set PRICE=9.99 --workers 4
            """
    )

    @OptionGroup var options: ProjectOptions

    @Argument(help: "The CSV file: a header row of field names, then one row per render.")
    var rows: String

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "Each row's file: a path with {{ COLUMN }} and {{ row }} in it, e.g. 'out/{{ CITY }}.mp4'.",
            valueName: "pattern"))
    var output: String

    @Flag(name: .long, help: "Replace files that exist already.")
    var overwrite = false

    @Option(name: .long, help: "Local worker processes (default: one per core).")
    var workers: Int?

    @OptionGroup(title: "Chunks") var chunking: ChunkOptions

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    @Flag(name: .long, help: "Do not serve the dashboard (by default on a free loopback port, its address printed).")
    var noDashboard = false

    @Flag(name: .long, help: "Render every chunk, even those the segment cache holds from an earlier render.")
    var noCache = false

    func validate() throws {
        if let workers, workers < 1 { throw ValidationError("--workers must be >= 1 (got \(workers))") }
    }

    func run() throws {
        let interruption = Interruption()
        let table = try readRows()
        let started = DatabaseStart(database)
        let workerCount = workers ?? ProcessInfo.processInfo.activeProcessorCount
        let planned: BatchPlan
        do {
            planned = try plan(table, workers: workerCount)
            try interruption.check()
        } catch {
            started.abandon()
            throw error
        }
        for refusal in planned.refusals { FileHandle.standardError.writeUnlessClosed(Data("\(refusal)\n".utf8)) }
        guard !planned.rows.isEmpty else {
            started.abandon()
            FileHandle.standardError.writeUnlessClosed(Data("\(rows): no row can render; nothing written\n".utf8))
            throw FarmExit.badInput
        }
        let farm = LocalFarm(
            database: database, started: started, workers: workerCount, encoderThreads: 1,
            verbose: options.verbose, dashboard: !noDashboard, interruption: interruption)
        let clock = ContinuousClock()
        let start = clock.now
        let outcomes: [JobState]
        do {
            outcomes = try farm.render(planned.rows.map(\.submission)) { store, jobs, check in
                try BatchProgress(rows: planned.rows.map(\.number), jobs: jobs, outputs: planned.rows.map(\.output))
                    .follow(store, check: check)
            }
        } catch let interrupted as Interrupted {
            FileHandle.standardError.writeUnlessClosed(
                Data("\(rows): \(interrupted); the batch's jobs are cancelled\n".utf8))
            throw ExitCode(128 + interrupted.signal)
        } catch {
            FileHandle.standardError.writeUnlessClosed(Data("\(rows): rendering failed: \(error)\n".utf8))
            throw FarmExit.failed
        }
        let done = outcomes.filter { $0 == .done }.count
        let refused = planned.refusals.isEmpty ? "" : ", \(Format.count(planned.refusedRows, "row")) refused"
        let elapsed = Format.seconds((clock.now - start) / .seconds(1))
        print(
            "\(rows): \(done) of \(table.rows.count) rows rendered\(refused), "
                + "\(outcomes.count - done) failed or cancelled, in \(elapsed)")
        if outcomes.contains(.cancelled) && done + outcomes.filter({ $0 == .cancelled }).count == outcomes.count {
            throw FarmExit.cancelled
        }
        if done < outcomes.count { throw FarmExit.failed }
        if !planned.refusals.isEmpty { throw FarmExit.badInput }
    }

    private func readRows() throws -> CSVRows {
        guard let data = FileManager.default.contents(atPath: rows), let text = String(data: data, encoding: .utf8)
        else {
            let reason =
                FileManager.default.fileExists(atPath: rows) ? "cannot be read as UTF-8 text" : "file not found"
            FarmExit.printError("\(rows): \(reason)")
            throw FarmExit.badInput
        }
        let table: CSVRows
        do { table = try CSVRows.parse(text) } catch let problem as CSVRows.Problem {
            FarmExit.printError("\(rows): \(problem)")
            throw FarmExit.badInput
        }
        let known = Set(table.header + ["row"])
        let unknown = Placeholder.split(output).compactMap { piece -> String? in
            if case .field(let name) = piece, !known.contains(name) { return name }
            return nil
        }
        if let name = unknown.first {
            FarmExit.printError(
                "--output: {{ \(name) }} is no column of \(rows) (columns: \(table.header.joined(separator: ", ")); "
                    + "{{ row }} is the row's number)")
            throw FarmExit.badInput
        }
        if table.rows.isEmpty {
            FarmExit.printError("\(rows): no rows after the header; nothing to render")
            throw FarmExit.badInput
        }
        return table
    }
}

/// The rows that passed their checks, each ready to submit, and why the others did not.
struct BatchPlan {
    struct Row {
        var number: Int
        var output: String
        var submission: JobSubmission
    }

    var rows: [Row] = []
    var refusals: [String] = []
    var refusedRows = 0
}

extension Batch {
    /// Every row checked as `farm render` checks its project: values merged, media probed
    /// (once per file for the whole batch), output checked and distinct from the other rows'.
    fileprivate func plan(_ table: CSVRows, workers: Int) throws -> BatchPlan {
        var loader = try options.makeLoader(probes: database.probeCache)
        let shared = try options.mergeValues()
        loader.mergePath = ""
        var plan = BatchPlan()
        var outputs: [String: Int] = [:]
        let stem = URL(fileURLWithPath: options.project).deletingPathExtension().lastPathComponent
        for row in table.rows {
            var problems: [String] = []
            var values = shared
            for (name, value) in row.values { values[name] = .text(value) }
            loader.merge = values
            var cells = row.values
            cells["row"] = String(row.number)
            let path = (try? Placeholder.fill(output, with: cells)) ?? output
            do {
                let loaded = try loader.load(file: options.project)
                // A pattern may put rows in folders of their own ('out/{{ CITY }}/promo.mp4').
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let check = OutputCheck(path: path, project: loaded.project, projectFile: options.project)
                problems += check.problems
                if let problem = check.replaceProblem(overwrite: overwrite) { problems.append(problem) }
                if let earlier = outputs[check.url.path] {
                    problems.append(
                        "output \(check.url.path) is row \(earlier)'s too; each row needs a file of its own")
                }
                if problems.isEmpty, let container = check.container {
                    outputs[check.url.path] = row.number
                    let size = chunking.size(
                        frameCount: loaded.project.frameCount, fps: loaded.project.output.fps, workers: workers)
                    var submission = try JobSubmission(
                        loaded: loaded, file: options.project,
                        mediaRoot: options.mediaRoot.map { URL(fileURLWithPath: $0) }, output: check.url,
                        container: container, chunkSize: size)
                    submission.name = "\(stem) row \(row.number)"
                    submission.useCache = !noCache
                    plan.rows.append(BatchPlan.Row(number: row.number, output: check.url.path, submission: submission))
                }
            } catch let error as ProjectError {
                problems += error.diagnostics.map(\.description)
            }
            if !problems.isEmpty {
                plan.refusedRows += 1
                plan.refusals += problems.map { "\(rows): row \(row.number): \($0)" }
            }
        }
        return plan
    }
}
