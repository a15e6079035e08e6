import ArgumentParser
import FarmCore
import FarmRender
import FarmStore
import Foundation

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a project to a video file on a farm of its own.",
        discussion: """
            By default this is the whole farm in one command: it starts a private PostgreSQL in the \
            data folder (unless --database or $DATABASE_URL names one), a coordinator and local \
            workers (one per core), splits the timeline into chunks, renders them in parallel, \
            joins them into the output and shuts everything down again. On a named database \
            without --data, its files go in a folder of that database's own inside the default \
            data folder (farms/ID), since a data folder belongs to one database. With --local it renders \
            the same chunks and audio blocks in this one process instead, on a thread per core, \
            with no database.

            Either way the output is the same, frame for frame and sample for sample. The container comes from the \
            output's extension (.mp4, .mov, .mkv; .m3u8 writes an HLS package: the master playlist \
            and, in the folder of its name beside it, a playlist per rendition and one for the sound), \
            else from the project's export.container. With export.renditions the output is the first \
            rendition and the others are written beside it as NAME.RENDITION.EXT. The \
            file appears only when complete: it is written under a temporary name, synced to disk \
            and renamed.

            Progress goes to standard error: on a terminal the live view of `farm watch` (a bar for \
            the job and one per running chunk), plain lines otherwise. The last line on standard \
            output is a summary. On a farm, the first line on standard error is the address of its \
            dashboard (and HTTP API) on this machine with a token for this render: open it in a \
            browser to watch the chunks (--no-dashboard to skip it).

            Exit codes: 0 done, 1 rendering failed, 2 bad project, media or output path \
            (nothing written), 4 cancelled (by `farm cancel` from another terminal), 64 a \
            wrong command line, 130 or 143 interrupted by Ctrl-C or SIGTERM (the job is \
            cancelled, everything started is stopped, nothing is written; a second Ctrl-C quits \
            at once).

            Examples:
              farm render project.json -o final.mp4
              farm render project.json -o final.mp4 --workers 2 --chunk-seconds 4
              farm render project.json -o final.mp4 --database postgresql://farm@db/farm
              farm render project.json -o shot.mov --local --frames 120..240
              farm render project.json -o final.mp4 --local --threads 4
            """
    )

    @OptionGroup var options: ProjectOptions

    @Option(name: [.short, .long], help: "The file to write.")
    var output: String

    @Flag(name: .long, help: "Render in this process, with no database or workers.")
    var local = false

    @Option(name: .long, help: "Local worker processes (default: one per core).")
    var workers: Int?

    @OptionGroup(title: "Chunks") var chunking: ChunkOptions

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    @Option(name: .long, help: "With --local: render only output frames A..B (A included, B excluded), e.g. 0..300.")
    var frames: FrameRange?

    @Option(
        name: .long,
        help: "With --local: chunks rendered at once (default: one per core). On a farm: encoder threads per worker.")
    var threads: Int?

    @Option(name: .long, help: "Decoder threads per video source with --local (0: one per core).")
    var decoderThreads = 1

    @Flag(
        name: .long,
        help: "On a farm: do not serve the dashboard (by default on a free loopback port, its address printed).")
    var noDashboard = false

    @Flag(
        name: .long,
        help: "On a farm: render every chunk, even those the segment cache holds from an earlier render.")
    var noCache = false

    func validate() throws {
        if let threads, threads < 0 { throw ValidationError("--threads must be >= 0 (got \(threads))") }
        if decoderThreads < 0 { throw ValidationError("--decoder-threads must be >= 0 (got \(decoderThreads))") }
        if let workers, workers < 1 { throw ValidationError("--workers must be >= 1 (got \(workers))") }
        if frames != nil, !local { throw ValidationError("--frames renders part of a timeline and needs --local") }
    }

    func run() throws {
        let interruption = Interruption()
        // The farm's database and its workers start while the project is read and its media
        // probed: each takes about a tenth of a second (BENCHMARKS.md).
        let started = local ? nil : DatabaseStart(database)
        let crew =
            local
            ? nil
            : LocalFarm.earlyWorkers(
                database: database, count: workerCount, encoderThreads: threads ?? 1, verbose: options.verbose)
        do {
            let loaded: LoadedProject
            let target: OutputTarget
            do {
                loaded = try options.load(probes: local ? nil : database.probeCache)
                target = try OutputTarget(path: output, project: loaded.project, projectFile: options.project)
                try interruption.check()
            } catch {
                crew?.stop()
                started?.abandon()
                throw error
            }
            if let started {
                try renderOnFarm(loaded, target: target, database: started, crew: crew, interruption: interruption)
            } else {
                try renderLocally(loaded, target: target, interruption: interruption)
            }
        } catch  where interruption.signal != nil {
            // Whatever the render threw on the way out, the cause is the signal.
            FileHandle.standardError.writeUnlessClosed(
                Data("\(output): \(Interrupted(signal: interruption.signal!)); nothing written\n".utf8))
            throw ExitCode(128 + interruption.signal!)
        }
    }

    private var workerCount: Int { workers ?? ProcessInfo.processInfo.activeProcessorCount }

    private func renderOnFarm(
        _ loaded: LoadedProject, target: OutputTarget, database started: DatabaseStart, crew: LocalWorkers?,
        interruption: Interruption
    ) throws {
        let size = chunking.size(
            frameCount: loaded.project.frameCount, fps: loaded.project.output.fps, workers: workerCount)
        var submission: JobSubmission
        do {
            submission = try JobSubmission(
                loaded: loaded, file: options.project, mediaRoot: options.mediaRoot.map { URL(fileURLWithPath: $0) },
                output: target.url, container: target.container, chunkSize: size)
            submission.useCache = !noCache
        } catch {
            crew?.stop()
            started.abandon()
            throw error
        }
        var farm = LocalFarm(
            database: database, started: started, crew: crew, workers: workerCount,
            encoderThreads: threads ?? 1, verbose: options.verbose, dashboard: !noDashboard,
            interruption: interruption)
        farm.spreadsUncached = !chunking.isChosen
        let clock = ContinuousClock()
        let started = clock.now
        let detail: JobDetail
        do {
            detail = try farm.render(submission) { store, job, check in
                var display = makeJobDisplay(json: false, handle: .standardError)
                return try JobWatcher(store: store, job: job, check: check).follow(on: &display)
            }
        } catch let error where !(error is Interrupted) {
            FileHandle.standardError.writeUnlessClosed(Data("\(output): rendering failed: \(error)\n".utf8))
            throw FarmExit.failed
        }
        guard detail.job.state == .done else { throw FarmExit.of(jobState: detail.job.state) }
        printSummary(
            loaded.project, frames: loaded.project.frameCount, url: target.url,
            elapsed: (clock.now - started) / .seconds(1),
            how: "\(Format.count(detail.kinds?.video ?? submission.chunks.count, "video chunk")) and "
                + Format.count(submission.audioBlocks.count, "audio block")
                + (detail.reusedChunks > 0 ? " (\(detail.reusedChunks) of them reused from the segment cache)" : ""))
    }

    private func renderLocally(_ loaded: LoadedProject, target: OutputTarget, interruption: Interruption) throws {
        let project = loaded.project
        let total = project.frameCount
        let range = frames.map { $0.start..<$0.end } ?? 0..<total
        if range.lowerBound < 0 || range.upperBound > total || range.isEmpty {
            FileHandle.standardError.writeUnlessClosed(
                Data("--frames \(range.lowerBound)..\(range.upperBound) is outside the timeline's 0..\(total)\n".utf8))
            throw FarmExit.badInput
        }
        var configuration = LocalRender.Configuration()
        if let threads { configuration.threads = max(1, threads) }
        // Decoded pictures are identical whatever the thread count: this changes speed only.
        configuration.decoderThreads =
            decoderThreads == 0 ? ProcessInfo.processInfo.activeProcessorCount : decoderThreads
        configuration.container = target.container
        configuration.cancellation = interruption.flag
        let renderer = LocalRender(loaded: loaded, configuration: configuration)
        let ((), elapsed) = try withProgress { meter in
            try renderer.render(frames: range, to: target.url) { meter.update($0) }
        }
        printSummary(
            project, frames: Int64(range.count), url: target.url, elapsed: elapsed,
            how: "in one process on \(configuration.threads) thread\(configuration.threads == 1 ? "" : "s")")
    }

    /// Runs a local render under a progress meter; on failure prints one line and exits 1.
    private func withProgress<T>(_ body: (ProgressMeter) throws -> T) throws -> (T, elapsed: Double) {
        let meter = ProgressMeter()
        defer { meter.finish() }
        do {
            return (try body(meter), meter.elapsed)
        } catch let error where !(error is RenderCancelled) {
            meter.finish()
            FileHandle.standardError.writeUnlessClosed(Data("\(output): rendering failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    private func printSummary(_ project: Project, frames: Int64, url: URL, elapsed: Double, how: String) {
        let container = ExportSettings.Container(fileExtension: url.pathExtension) ?? project.export.container
        let size = { (file: URL) in (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0 }
        // An HLS output is its master playlist and the folder beside it.
        let frameFiles = FramePattern(path: url.path).map { pattern in
            (FrameFiles.firstNumber..<FrameFiles.firstNumber + Int(frames)).map {
                URL(fileURLWithPath: pattern.path($0))
            }
        }
        let bytes =
            container == .hls
            ? Int(HLSPackage.bytes(of: url))
            : container == .frames ? (frameFiles ?? []).map(size).reduce(0, +) : size(url)
        let sound = container == .frames ? "" : " + \(project.export.audio.codec.rawValue)"
        let seconds = Rational(frames) / project.output.fps
        let streams = project.subtitleStreamCount
        let subtitles = streams == 0 ? "" : " + \(streams) subtitle stream\(streams == 1 ? "" : "s")"
        let encodes = project.export.encodes(of: project.output)
        print(
            "\(url.path): \(frames) frames, \(encodes[0].width)x\(encodes[0].height) "
                + "@ \(project.output.fps) fps, \(Format.duration(seconds)), \(encodes[0].video.codec.rawValue)"
                + "\(sound)\(subtitles), \(Format.bytes(bytes)), rendered \(how) in "
                + "\(Format.seconds(elapsed)) (\(Format.rate(Double(frames) / max(elapsed, 0.001))) fps)")
        let stills = OutputStills.files(of: project.export, beside: url).filter {
            FileManager.default.fileExists(atPath: $0.path)
        }
        if !stills.isEmpty { print("  beside it: " + stills.map(\.lastPathComponent).joined(separator: ", ")) }
        if encodes.count > 1 || container == .hls {
            let files = OutputJoin.files(of: project.export, output: project.output, container: container, at: url)
            let described = encodes.enumerated().map { index, encode in
                let place =
                    container == .hls
                    ? "\(HLSPackage.folder(of: url).lastPathComponent)/\(encode.name)/index.m3u8"
                    : files[index].lastPathComponent
                return "\(place) (\(encode.width)x\(encode.height) \(encode.video.codec.rawValue))"
            }
            print("  renditions: " + described.joined(separator: ", "))
        }
        if container == .hls {
            print("  DASH: \(HLSPackage.dashManifest(of: url).lastPathComponent) (the same segments)")
        }
    }
}

/// `A..B`: output frames A (included) to B (excluded).
struct FrameRange: ExpressibleByArgument {
    var start: Int64
    var end: Int64

    init?(argument: String) {
        let parts = argument.components(separatedBy: "..")
        guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]), start < end else { return nil }
        self.start = start
        self.end = end
    }
}
