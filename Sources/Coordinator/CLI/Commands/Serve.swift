import ArgumentParser
import FarmCoordinator
import FarmCore
import FarmHTTP
import FarmMedia
import FarmWire
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the coordinator: hand chunks to workers, verify their segments, join finished jobs.",
        discussion: """
            Workers connect to the bound address (farm-worker --coordinator tcp://HOST:5555). Jobs \
            come from `farm submit`. All state is in PostgreSQL: stop the coordinator at any time \
            (even with SIGKILL), start it again, and it carries on; workers reconnect by themselves.

            Accepted segments stay in DATA/jobs/ID after the join, for `farm retry --chunk`: \
            `farm prune` removes finished jobs' (older than 7 days, or `--older-than`), and \
            `--keep-segments 2d` has this coordinator remove them by itself.

            Examples:
              farm serve --database postgresql://farm@db/farm --bind tcp://*:5555 --data /srv/farm
              farm serve                # private PostgreSQL in the data folder
            """
    )

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    @Option(name: .long, help: "ZeroMQ endpoint workers connect to.")
    var bind = "tcp://*:5555"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write job outputs only below this folder (default: the folder serve starts in).",
            discussion:
                "A job whose output resolves elsewhere, or is a symbolic link, is refused at submit and fails "
                + "at its join.",
            valueName: "folder"))
    var outputRoot: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The coordinator's key pair (`farm keys generate coordinator`).",
            discussion: "With --allowed-workers: only workers with an allowed key connect, encrypted (CURVE). "
                + "Without keys, a wildcard --bind listens on 127.0.0.1 only.",
            valueName: "file.key"))
    var key: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Folder of the public keys (NAME.pub) of workers admitted.", valueName: "folder"))
    var allowedWorkers: String?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Without keys, listen on --bind even where other machines reach it.",
            discussion: "Anyone who can connect can then join as a worker and read every job's project: only on "
                + "a network you trust entirely."))
    var insecure = false

    @Option(name: .long, help: "Seconds a silent worker keeps its chunk before it is handed to another.")
    var leaseSeconds = 10.0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Remove a finished job's segments this long after it ends (e.g. 2d, 12h; default: keep them until "
                + "`farm prune`). Without them `farm retry --chunk` renders the job's other chunks again.",
            valueName: "DURATION"))
    var keepSegments: Duration?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most disk the segment cache keeps (e.g. 20G, 500M; 0 keeps none): accepted segments by their "
                + "key, so a later job whose chunk did not change reuses it. The least recently used go first.",
            valueName: "SIZE"))
    var cacheSize = ByteSize(bytes: 20_000_000_000)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also serve the HTTP API here (e.g. 127.0.0.1:8080; port 0 picks one). Every call but /healthz "
                + "needs a token: farm tokens create NAME --role read|submit|operate.",
            valueName: "HOST:PORT"))
    var http: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where the assets of projects submitted over HTTP are, relative paths resolved and every path "
                + "confined (no .., no absolute paths elsewhere, no links out). Without it the API takes no "
                + "submissions.",
            valueName: "DIR"))
    var mediaRoot: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The largest media file the HTTP API takes (PUT /api/media, kept in MEDIA_ROOT/uploads).",
            valueName: "SIZE"))
    var mediaLimit = ByteSize(bytes: 50_000_000_000)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A web app's origin that may call the HTTP API from a browser (CORS), e.g. https://app.example; "
                + "repeatable; * for any. Its calls still need a token.",
            valueName: "ORIGIN"))
    var corsOrigin: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The only networks job notifications (farm submit --notify) may go to, comma-separated "
                + "(e.g. 10.0.0.0/8,192.168.1.20). Default: anywhere but where cloud metadata answers.",
            discussion: "Every address a notify URL's host resolves to must be inside one. A refused notice is "
                + "not sent, and the job's notify error says why; redirects are never followed.",
            valueName: "NETWORKS"))
    var notifyAllow: String?

    @Flag(name: .long, help: "Log every message, not just events.")
    var verbose = false

    /// Tests put a program here that stands in for a verifier that crashes.
    @Option(name: .long, help: ArgumentHelp("The program run as `PROGRAM verify-segment …`.", visibility: .hidden))
    var segmentVerifier: String?

    func validate() throws {
        if (key == nil) != (allowedWorkers == nil) {
            throw ValidationError("--key and --allowed-workers go together: a farm with keys needs both")
        }
        if leaseSeconds < 1 { throw ValidationError("--lease-seconds must be >= 1 (got \(leaseSeconds))") }
        if let http, Self.hostAndPort(http) == nil {
            throw ValidationError("--http \(http): expected HOST:PORT, e.g. 127.0.0.1:8080")
        }
        if let problem = EndpointSyntax.problem(in: bind) { throw ValidationError("--bind \(problem)") }
        _ = try notifyNetworks()
        if key == nil, !insecure, EndpointSyntax.loopback(for: bind) == nil, !EndpointSyntax.isLoopback(bind) {
            throw ValidationError(
                "--bind \(bind) without --key would let anyone who can reach it join as a worker and read every "
                    + "job's project; give --key and --allowed-workers (farm keys generate), bind 127.0.0.1, or "
                    + "pass --insecure on a network you trust")
        }
    }

    /// `--notify-allow` read: nil when not given.
    private func notifyNetworks() throws -> [IPNetwork]? {
        guard let notifyAllow else { return nil }
        guard !notifyAllow.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--notify-allow: give at least one network (e.g. 10.0.0.0/8)")
        }
        return try notifyAllow.split(separator: ",").map { part in
            let text = part.trimmingCharacters(in: .whitespaces)
            guard let network = IPNetwork(text) else {
                throw ValidationError(
                    "--notify-allow: \"\(text)\" is not an address or network (e.g. 10.0.0.0/8, fd00::/8, 192.168.1.20)"
                )
            }
            return network
        }
    }

    func run() throws {
        SignalMask.unblockAll()
        FarmLogging.bootstrap(level: verbose ? .debug : .info)
        FFmpegLog.configure(verbose: false)
        let (url, server) = try database.open()
        defer { server?.stop() }
        var configuration = CoordinatorServer.Configuration(database: url, dataDirectory: database.dataDirectory)
        configuration.bind = bind
        configuration.keepSegmentsSeconds = keepSegments?.seconds
        configuration.cacheBytes = cacheSize.bytes
        configuration.notifyTargets = NotifyTargets(allowed: try notifyNetworks())
        if let key, let allowedWorkers {
            let folder = URL(fileURLWithPath: allowedWorkers)
            do {
                configuration.keys = (try CurveKeys.load(URL(fileURLWithPath: key)), folder)
                _ = try CurveKeys.loadPublicKeys(in: folder)
            } catch let error as TransportError {
                FarmExit.printError(error.description)
                throw FarmExit.badInput
            } catch {
                FarmExit.printError("--allowed-workers \(folder.path): \(error.localizedDescription)")
                throw FarmExit.badInput
            }
        } else if !insecure, let local = EndpointSyntax.loopback(for: bind) {
            Logger(label: "farm.coordinator").warning(
                """
                no --key: listening on \(local) only, so only this machine's workers can join; give --key and \
                --allowed-workers to admit others (farm keys generate)
                """)
            configuration.bind = local
        } else if !EndpointSyntax.isLoopback(bind) {
            Logger(label: "farm.coordinator").warning(
                "no --key: anyone who can reach \(bind) can join as a worker and read every job's project")
        }
        configuration.leaseSeconds = leaseSeconds
        configuration.outputRoot = OutputRoot(
            URL(fileURLWithPath: outputRoot ?? FileManager.default.currentDirectoryPath))
        if let segmentVerifier { configuration.verifier = segmentVerifier }
        let coordinator = try CoordinatorServer(configuration: configuration)
        let api = try http.flatMap(Self.hostAndPort).map { address in
            do {
                return try FarmHTTPServer(
                    database: url, host: address.host, port: address.port,
                    mediaRoot: mediaRoot.map { URL(fileURLWithPath: $0).standardizedFileURL },
                    dataDirectory: database.dataDirectory,
                    settings: HTTPSettings(corsOrigins: corsOrigin, uploadLimit: mediaLimit.bytes),
                    logger: Logger(label: "farm.http"))
            } catch {
                FarmExit.printError("--http \(address.host):\(address.port): \(error)")
                throw FarmExit.failed
            }
        }
        if let api { Logger(label: "farm.coordinator").info("HTTP API on \(api.url)") }
        defer { api?.stop() }
        let signals = StopSignals { _ in coordinator.stop() }
        try coordinator.run()
        _ = signals
    }

    /// "127.0.0.1:8080" → ("127.0.0.1", 8080); "[::1]:80" too.
    static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
