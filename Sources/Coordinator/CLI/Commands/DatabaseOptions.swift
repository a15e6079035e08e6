import ArgumentParser
import FarmCore
import FarmMedia
import FarmPostgres
import FarmStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the farm keeps its state: a PostgreSQL URL, or a private server in the data folder.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "PostgreSQL connection string, e.g. postgresql://farm@db/farm (default: $DATABASE_URL; "
                + "without either, a private server in --data).",
            valueName: "url"))
    var database: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The farm's data folder: the private PostgreSQL and accepted segments (default: $FARM_DATA, "
                + "else /var/lib/farm as root, else ~/.local/share/farm).",
            valueName: "dir"))
    var data: String?

    var dataDirectory: URL {
        if let data { return URL(fileURLWithPath: data).standardizedFileURL }
        if let folder = ProcessInfo.processInfo.environment["FARM_DATA"], !folder.isEmpty {
            return URL(fileURLWithPath: folder).standardizedFileURL
        }
        if getuid() == 0 { return URL(fileURLWithPath: "/var/lib/farm") }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/farm")
    }

    /// Whether the data folder was chosen (--data or $FARM_DATA) rather than defaulted.
    var dataChosen: Bool {
        data != nil || !(ProcessInfo.processInfo.environment["FARM_DATA"] ?? "").isEmpty
    }

    /// --database, else $DATABASE_URL when set.
    var namedDatabase: String? {
        if let url = database ?? ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty { return url }
        return nil
    }

    /// The probe results kept in the data folder, once it holds a farm (a command that only
    /// submits elsewhere does not create one for them).
    var probeCache: ProbeCache? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dataDirectory.path, isDirectory: &isFolder), isFolder.boolValue
        else { return nil }
        return ProbeCache(folder: dataDirectory.appendingPathComponent("probes"))
    }

    /// Where the private server keeps its cluster.
    var privateServerFolder: URL { dataDirectory.appendingPathComponent("postgres") }

    /// The connection string to use, and the private server when this call started one.
    func open() throws -> (url: String, server: PrivatePostgres?) {
        if let url = namedDatabase { return (url, nil) }
        let server = try PrivatePostgres(directory: privateServerFolder)
        try server.start()
        return (server.connectionString, server)
    }
}

/// Chunk size for `farm render` and `farm submit`.
struct ChunkOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            About this many seconds of timeline per chunk (default 2; farm render: 2, 4, 8 … s, 8-16 a worker, \
            and the chunks an edit changed split so that every worker takes a part).
            """)
    var chunkSeconds: String?

    @Option(name: .long, help: "Split the timeline into this many chunks of near-equal length.")
    var chunks: Int?

    @Option(name: .long, help: "Exactly this many frames per chunk (the last may be shorter).")
    var chunkFrames: Int64?

    /// Whether a size was asked for: `farm render` chooses one, and spreads an edit, only when not.
    var isChosen: Bool { chunkSeconds != nil || chunks != nil || chunkFrames != nil }

    func validate() throws {
        let given = [chunkSeconds != nil, chunks != nil, chunkFrames != nil].filter { $0 }.count
        if given > 1 { throw ValidationError("give at most one of --chunk-seconds, --chunks and --chunk-frames") }
        if let chunks, chunks < 1 { throw ValidationError("--chunks must be >= 1 (got \(chunks))") }
        if let chunkFrames, chunkFrames < 1 {
            throw ValidationError("--chunk-frames must be >= 1 (got \(chunkFrames))")
        }
        if let chunkSeconds {
            guard let seconds = Rational(parsing: chunkSeconds), !seconds.isNegative, seconds != Rational(0) else {
                throw ValidationError("--chunk-seconds must be a positive number (got \(chunkSeconds))")
            }
        }
    }

    var size: ChunkPlanner.Size { size(frameCount: nil, fps: nil, workers: nil) }

    /// The chunk size asked for, else the default: 2 seconds, or, when the workers are known
    /// (`farm render`'s own farm), the length `ChunkLength` picks for them.
    func size(frameCount: Int64?, fps: Rational?, workers: Int?) -> ChunkPlanner.Size {
        if let chunks { return .count(chunks) }
        if let chunkFrames { return .frames(chunkFrames) }
        if let seconds = chunkSeconds.flatMap(Rational.init(parsing:)) { return .seconds(seconds) }
        guard let frameCount, let fps, let workers else { return .seconds(Rational(2)) }
        return .seconds(Rational(ChunkLength.choose(duration: (Rational(frameCount) / fps).seconds, workers: workers)))
    }
}
