import ArgumentParser
import FarmCore
import FarmMedia
import FarmRender
import FarmWire
import FarmWorker
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

@main
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm-worker",
        abstract: "Render chunks assigned by a farm coordinator.",
        discussion: """
            The worker connects to the coordinator (and reconnects whenever it restarts), renders \
            each assigned chunk with the shared compositor, and uploads the encoded segment to the \
            coordinator, so machines need no shared writable storage. Media is read from \
            --media-root, a folder every machine mounts at its own path, or holds its own copy of \
            (rsync -a): a copy renders where every block a chunk reads has the bytes submitted.

            Examples:
              farm-worker --coordinator tcp://render-01:5555 --media-root /mnt/media
              farm-worker --coordinator tcp://10.0.0.5:5555 --slots 2 --threads 2
              farm-worker --coordinator tcp://render-01:5555 --upload-limit 20M
              farm-worker --coordinator tcp://render-01:5555 --tags 4k,site-a --x264-level AVX
              FARM_COORDINATOR=tcp://render-01:5555 FARM_SLOTS=2 farm-worker

            Every option may instead be given in the environment, as a service manager's \
            env file does: FARM_COORDINATOR, FARM_MEDIA_ROOT, FARM_SLOTS, FARM_THREADS, \
            FARM_WORKER_ID, FARM_KEY, FARM_COORDINATOR_KEY, FARM_SCRATCH, FARM_UPLOAD_LIMIT, FARM_TAGS, \
            FARM_X264_LEVEL. A flag \
            wins over its variable; an empty variable counts as unset.
            """,
        version: MediaLibraries.versionText(FarmVersion.current)
    )

    static func main() {
        StandardDescriptors.openMissing()
        main(nil)
    }

    @Option(name: .long, help: "The coordinator's ZeroMQ endpoint (required; or $FARM_COORDINATOR).")
    var coordinator: String?

    @Option(
        name: .long,
        help: """
            Folder that projects' relative asset paths resolve against (default: the path the submitter used). \
            Given, the worker reads no asset outside it (absolute, .., or a link out).
            """)
    var mediaRoot: String?

    @Option(name: .long, help: "Chunks rendered at the same time, at most 1024 (default: 1).")
    var slots: Int?

    @Option(name: .long, help: "Encoder threads per chunk (default: 1).")
    var threads: Int?

    @Option(name: .long, help: "This worker's name (default: KEYNAME@HOST with --key, else HOST-PID).")
    var id: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "This worker's key pair (`farm keys generate NAME`); its public half must be in the coordinator's "
                + "--allowed-workers folder.", valueName: "file.key"))
    var key: String?

    @Option(name: .long, help: ArgumentHelp("The coordinator's public key (coordinator.pub).", valueName: "file.pub"))
    var coordinatorKey: String?

    @Option(name: .long, help: "Folder for segments before upload (default: a temporary folder).")
    var scratch: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Upload at most this many bytes per second, all uploads together (k, M, G: powers of 1000), "
                + "so a worker on a shared link leaves room for others (default: no limit).", valueName: "rate"))
    var uploadLimit: ByteRate?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The pools this worker serves, comma-separated (gpu,4k,site-a): a job submitted with --requires "
                + "goes only to workers with all its tags.", valueName: "tags"))
    var tags: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The highest instruction-set level libx264 may use: "
                + X264InstructionSet.levelNames.joined(separator: ", ")
                + " (default: all this CPU has, up to AVX2). Cap a mixed farm's workers at the level all share, "
                + "and they render one job together.", valueName: "level"))
    var x264Level: String?

    @Flag(name: .long, help: "Show FFmpeg's own warnings.")
    var verbose = false

    /// `farm render` starts its workers with its own pid here: they stop when it ends.
    @Option(name: .long, help: ArgumentHelp("Stop when process PID ends.", visibility: .hidden))
    var parent: Int32?

    mutating func validate() throws {
        try takeEnvironment(ProcessInfo.processInfo.environment)
        guard let coordinator else {
            throw ValidationError(
                "--coordinator (or FARM_COORDINATOR) names the coordinator, e.g. tcp://render-01:5555")
        }
        let (slots, threads) = (self.slots ?? 1, self.threads ?? 1)
        if slots < 1 { throw ValidationError("--slots must be >= 1 (got \(slots))") }
        // The coordinator refuses a worker claiming more (`WireBounds`): say so here, not there.
        if slots > WireBounds.slots.upperBound {
            throw ValidationError("--slots must be at most \(WireBounds.slots.upperBound) (got \(slots))")
        }
        if threads < 0 { throw ValidationError("--threads must be >= 0 (got \(threads))") }
        if let problem = EndpointSyntax.problem(in: coordinator) { throw ValidationError("--coordinator \(problem)") }
        if let tags { try Self.checkTags(tags, from: "--tags") }
        if let x264Level { try Self.checkLevel(x264Level, from: "--x264-level") }
        if (key == nil) != (coordinatorKey == nil) {
            throw ValidationError("--key and --coordinator-key go together: a farm with keys needs both")
        }
    }

    func run() throws {
        SignalMask.unblockAll()
        FarmLogging.bootstrap(level: .info)
        FFmpegLog.configure(verbose: verbose)
        var keys: (own: CurveKeys, coordinator: String)?
        if let key, let coordinatorKey {
            do {
                keys = (
                    try CurveKeys.load(URL(fileURLWithPath: key)),
                    try CurveKeys.loadPublic(URL(fileURLWithPath: coordinatorKey))
                )
            } catch {
                FileHandle.standardError.write(Data("farm-worker: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        if let keys, let id, !CurveKeys.id(id, belongsTo: keys.own.name) {
            throw ValidationError(
                "--id \(id) must be the key's name or NAME@SUFFIX (\(keys.own.name)): a worker is its key")
        }
        let name = id ?? keys.map { "\($0.own.name)@\(WorkerAgent.hostName)" } ?? "\(WorkerAgent.hostName)-\(getpid())"
        let folder =
            scratch.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("farm-worker-\(name)")
        guard let coordinator else { throw ValidationError("--coordinator (or FARM_COORDINATOR) is required") }
        var configuration = WorkerAgent.Configuration(coordinator: coordinator, id: name, scratch: folder)
        configuration.slots = slots ?? 1
        configuration.encoderThreads = threads ?? 1
        configuration.mediaRoot = mediaRoot.map { URL(fileURLWithPath: $0) }
        configuration.keys = keys
        configuration.uploadLimit = uploadLimit
        configuration.tags = try tags.map(PoolTags.parse) ?? []
        if let x264Level { X264InstructionSet.cap(at: x264Level) }
        configuration.kind = RenderNodeKind.current
        let agent = try WorkerAgent(configuration: configuration)
        signal(SIGPIPE, SIG_IGN)
        // SIGTERM (a service manager's stop) and Ctrl-C end the loop: chunks in hand are
        // dropped (the coordinator hands them on when their leases run out) and it exits 0.
        let signals = StopSignals { _ in agent.stop() }
        if let parent, !ParentLifetime.end(with: parent) { return }
        try agent.run()
        _ = signals
    }
}

extension WorkerCommand {
    /// `text` as tags (`PoolTags`), or the reason it is not, named after where it came from.
    static func checkTags(_ text: String, from name: String) throws {
        do { _ = try PoolTags.parse(text) } catch { throw ValidationError("\(name): \(error)") }
    }

    /// `level` as one of libx264's instruction-set levels, or the reason it is not.
    static func checkLevel(_ level: String, from name: String) throws {
        guard X264InstructionSet.levelNames.contains(level) else {
            let levels = X264InstructionSet.levelNames.joined(separator: ", ")
            throw ValidationError("\(name) must be one of \(levels) (got \(level))")
        }
    }
}

extension ByteRate: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(argument)
    }
}
