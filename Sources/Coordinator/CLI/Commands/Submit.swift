import ArgumentParser
import FarmCore
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Queue a project for the farm's coordinator and print the job id.",
        discussion: """
            The project is checked first (exit 2 on any problem, nothing queued). Relative asset \
            paths resolve on each worker against its --media-root, else against this project \
            file's folder, which then must be the same path on every machine.

            With --watch it then follows the job like `farm watch` (on standard error; the id \
            stays alone on standard output) and exits as `farm watch` does.

            An existing output file is an error (exit 2) unless --overwrite says to replace it; \
            an output that is a symbolic link always is: the farm never writes through one.

            A job with --requires goes only to workers whose --tags include every tag it names; \
            `farm status` says when no live worker has them.

            A farm that no coordinator has ever served is refused (exit 5): a mistyped --data or \
            $FARM_DATA would otherwise queue the job where nothing renders it. --queue-only \
            queues it there anyway, for a coordinator started later.

            Exit codes: 0 queued (with --watch: done), 1 failed or farm unreachable, 2 bad project, \
            media or output (nothing queued), 4 cancelled while watched, 5 no coordinator has \
            served this farm, 64 a wrong command line.

            Examples:
              farm submit project.json -o /srv/out/final.mp4 --database postgresql://farm@db/farm
              farm submit project.json -o final.mov --chunk-seconds 5 --priority 10
              farm submit project.json -o final.mp4 --watch
              farm submit project.json -o final.mp4 --notify https://editor.example/hooks/farm
              farm submit project.json -o final.mp4 --requires 4k,site-a
              farm submit project.json -o /srv/out/final.mp4 --api http://farm:8080 --token farm_…

            With --api the job goes over the farm's HTTP API alone, for a machine that reaches \
            nothing else of the farm: every asset is sent first (as `farm upload` sends it: what \
            the farm holds is not sent again) and the project is submitted naming them by their \
            digest, so it needs no path on the coordinator; --overwrite, --notify, --priority, \
            --no-cache, --requires and --after go with it.
            """
    )

    @OptionGroup var options: ProjectOptions

    @Option(name: [.short, .long], help: "The file the coordinator writes (a path on the coordinator's machine).")
    var output: String

    @OptionGroup(title: "Chunks") var chunking: ChunkOptions

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    @Option(name: .long, help: "Higher runs first; equal priorities run in submission order.")
    var priority = 0

    @Flag(name: .long, help: "Follow the job until it ends, as `farm watch` does.")
    var watch = false

    @Flag(name: .long, help: "Replace the output file if it already exists (by default a job never does).")
    var overwrite = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "POST the job's JSON here once when it ends (done, failed or cancelled), signed: X-Farm-Signature is "
                + "sha256= and the HMAC-SHA256 of the body under the farm's secret (farm tokens notify-secret). "
                + "Retried with backoff until answered 2xx.",
            valueName: "URL"))
    var notify: String?

    @Flag(
        name: .long,
        help: "Render every chunk, even those the segment cache holds from an earlier job (they are kept anew).")
    var noCache = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Tags a worker must have to render this job, comma-separated (farm-worker --tags).", valueName: "tags"))
    var requires: String?

    @Flag(
        name: .long,
        help: "Queue even in a farm no coordinator has served yet (one started later renders it).")
    var queueOnly = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Start only once this job is done (repeatable): if it fails or is cancelled, this one fails too.",
            valueName: "JOB"))
    var after: [Int64] = []

    @OptionGroup(title: "Over HTTP") var api: APIOptions

    func validate() throws {
        try StoredIntegers.checkPriority(priority)
        if let bad = after.first(where: { $0 < 1 }) { throw ValidationError("--after takes a job id (got \(bad))") }
        if let requires {
            do { _ = try PoolTags.parse(requires) } catch { throw ValidationError("--requires: \(error)") }
        }
        if let notify, let problem = JobSubmission.notifyProblem(notify) {
            throw ValidationError("--notify \(problem)")
        }
    }

    func run() throws {
        if api.url != nil { return try submitOverHTTP() }
        let loaded = try options.load(probes: database.probeCache)
        let target = try OutputTarget(path: output, project: loaded.project, projectFile: options.project)
        try target.refuseToReplace(unless: overwrite)
        var submission = try JobSubmission(
            loaded: loaded, file: options.project, mediaRoot: options.mediaRoot.map { URL(fileURLWithPath: $0) },
            output: target.url, container: target.container, chunkSize: chunking.size, priority: priority)
        submission.notifyURL = notify
        submission.useCache = !noCache
        submission.requires = try requires.map(PoolTags.parse) ?? []
        submission.after = after
        if !queueOnly, database.namedDatabase == nil,
            !FileManager.default.fileExists(atPath: database.privateServerFolder.path)
        {
            FarmExit.printError(Self.noCoordinator(database.dataDirectory.path))
            throw FarmExit.conflict
        }
        let state = try database.withFarm(creating: queueOnly) { store -> JobState? in
            if !queueOnly, try store.coordinatorLiveness().lastSeen == nil {
                throw FarmControlError.conflict(
                    Self.noCoordinator(database.namedDatabase == nil ? database.dataDirectory.path : nil))
            }
            try target.refuseOutside(store.outputRoot())
            var submission = submission
            // An edit inside a long chunk renders only the GOPs it changed.
            if submission.useCache { _ = try store.reuseCachedGrains(&submission) }
            let id = try store.submit(submission)
            print(id)
            guard watch else { return nil }
            fflush(stdout)
            var display = makeJobDisplay(json: false, handle: .standardError)
            return try JobWatcher(store: store, job: id).follow(on: &display).job.state
        }
        if let state { throw FarmExit.of(jobState: state) }
    }

    /// Why a job is not queued in a farm no coordinator has served, and what to do.
    static func noCoordinator(_ folder: String?) -> String {
        let farm = folder.map { "the farm at \($0)" } ?? "this farm database"
        let serve = folder.map { "farm serve --data \($0)" } ?? "farm serve --database URL"
        return "no coordinator has ever served \(farm), so nothing would render the job (a mistyped --data or "
            + "$FARM_DATA?); start one with `\(serve)`, or pass --queue-only to queue it for one started later"
    }
}
