import ArgumentParser
import FarmCoordinator
import FarmCore
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

            Accepted segments stay in DATA/jobs/ID after the join; remove old job folders \
            when the outputs are safe.

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

    @Option(name: .long, help: "Seconds a silent worker keeps its chunk before it is handed to another.")
    var leaseSeconds = 10.0

    @Flag(name: .long, help: "Log every message, not just events.")
    var verbose = false

    func validate() throws {
        if leaseSeconds < 1 { throw ValidationError("--lease-seconds must be >= 1 (got \(leaseSeconds))") }
        if let problem = EndpointSyntax.problem(in: bind) { throw ValidationError("--bind \(problem)") }
    }

    func run() throws {
        SignalMask.unblockAll()
        FarmLogging.bootstrap(level: verbose ? .debug : .info)
        FFmpegLog.configure(verbose: false)
        let (url, server) = try database.open()
        defer { server?.stop() }
        var configuration = CoordinatorServer.Configuration(database: url, dataDirectory: database.dataDirectory)
        configuration.bind = bind
        configuration.leaseSeconds = leaseSeconds
        configuration.outputRoot = OutputRoot(
            URL(fileURLWithPath: outputRoot ?? FileManager.default.currentDirectoryPath))
        let coordinator = try CoordinatorServer(configuration: configuration)
        let signals = StopSignals { _ in coordinator.stop() }
        try coordinator.run()
        _ = signals
    }
}
