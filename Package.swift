// swift-tools-version:5.10
import PackageDescription

// One target per layer, so the compiler keeps the boundaries (docs/architecture.md):
//   FarmCore ← FarmMedia ← FarmRender ← FarmCoordinator, FarmWorker
//   FarmCore ← FarmStore ← FarmCoordinator      FarmCore ← FarmWire ← FarmCoordinator, FarmWorker
//   FarmCore ← FarmText ← FarmRender
// Only FarmMedia imports CFFmpeg, only FarmCore CCrypto (SHA-256 and HMAC), only FarmStore CPostgres,
// only FarmWire CZeroMQ, only FarmText CText.
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

let package = Package(
    name: "farm",
    // Linux is the platform; macOS 13 is where Duration and ContinuousClock begin.
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "farm", targets: ["FarmMain"]),
        .executable(name: "farm-worker", targets: ["FarmWorkerMain"]),
        .executable(name: "farm-bench", targets: ["Bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The HTTP API (farm serve --http): a small, well-kept server on SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        // Hummingbird's own lifecycle package, named so the server can be stopped gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Under Hummingbird, and named because FarmHTTP uses their types itself (HTTP fields and
        // statuses; NIO's ByteBuffer): the versions Hummingbird 2.28 asks for.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"])
            ]
        ),
        .systemLibrary(name: "CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(
            name: "CText", pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev", "libfreetype-dev", "libfontconfig-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "CSpawn"),

        // Exact time, the project model and its validation, chunk planning, typed states, support.
        .target(name: "FarmCore", dependencies: ["CSpawn", "CCrypto", logging], path: "Sources/Shared/Core"),
        // Other programs' timelines read into the farm's project: OpenTimelineIO.
        .target(name: "FarmInterchange", dependencies: ["FarmCore"], path: "Sources/Shared/Interchange"),
        // The only importer of FFmpeg: decode, encode, mux, scale, resample, pictures, hashing.
        .target(name: "FarmMedia", dependencies: ["FarmCore", "CFFmpeg"], path: "Sources/Shared/Media"),
        // The only importer of HarfBuzz, FreeType and fontconfig: titles shaped and rasterized.
        .target(name: "FarmText", dependencies: ["FarmCore", "CText"], path: "Sources/Shared/Text"),
        // Compositor, mixer, timeline renderer, joiner and verifier, on FarmMedia's Swift API.
        .target(
            name: "FarmRender", dependencies: ["FarmCore", "FarmInterchange", "FarmMedia", "FarmText"],
            path: "Sources/Shared/Render"),
        // The only importer of libpq: the connection, rows by column name, the private server.
        .target(name: "FarmPostgres", dependencies: ["FarmCore", "CPostgres"], path: "Sources/Shared/Postgres"),
        // The farm's tables on it: migrations, one file per SQL function, the store's calls.
        .target(name: "FarmStore", dependencies: ["FarmCore", "FarmPostgres"], path: "Sources/Shared/Store"),
        // The only importer of libzmq: messages and sockets.
        .target(name: "FarmWire", dependencies: ["FarmCore", "CZeroMQ"], path: "Sources/Shared/Wire"),

        // The coordinator's data folder, one job's results and uploads: the coordinator writes it,
        // the HTTP API reads it.
        .target(
            name: "FarmDataFolder", dependencies: ["FarmCore", "FarmRender"], path: "Sources/Coordinator/DataFolder"),
        .target(
            name: "FarmCoordinator",
            dependencies: [
                "FarmCore", "FarmDataFolder", "FarmMedia", "FarmRender", "FarmPostgres", "FarmStore", "FarmWire",
                logging,
            ],
            path: "Sources/Coordinator/Server"
        ),
        // The HTTP API beside the coordinator; the only importer of Hummingbird.
        .target(
            name: "FarmHTTP",
            dependencies: [
                "FarmCore", "FarmDataFolder", "FarmInterchange", "FarmMedia", "FarmRender", "FarmPostgres", "FarmStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), logging,
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Coordinator/HTTP",
            // The dashboard's page, script and style, as Swift strings made at build time.
            plugins: ["EmbedFiles"]
        ),
        .target(
            name: "FarmWorker",
            dependencies: ["FarmCore", "FarmMedia", "FarmRender", "FarmWire", logging],
            path: "Sources/Worker/Agent"
        ),
        .target(
            name: "FarmCLI",
            dependencies: [
                "FarmCore", "FarmInterchange", "FarmMedia", "FarmRender", "FarmPostgres", "FarmStore", "FarmWire",
                "FarmCoordinator", "FarmHTTP", argumentParser, logging,
            ],
            path: "Sources/Coordinator/CLI"
        ),

        .executableTarget(name: "FarmMain", dependencies: ["FarmCLI"], path: "Sources/Coordinator/Main"),
        .executableTarget(
            name: "FarmWorkerMain",
            dependencies: ["FarmCore", "FarmMedia", "FarmRender", "FarmWire", "FarmWorker", argumentParser, logging],
            path: "Sources/Worker/Main"
        ),
        .executableTarget(
            name: "Bench",
            dependencies: ["FarmCore", "FarmMedia", "FarmRender", "FarmPostgres", "FarmStore", "FarmWire"]),

        // The build-time tool behind FarmHTTP's dashboard: web files into a Swift source.
        .executableTarget(name: "EmbedFilesTool", path: "Plugins/EmbedFilesTool"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),

        .target(
            name: "TestSupport",
            dependencies: ["FarmCore", "FarmMedia", "FarmRender", "FarmPostgres", "FarmStore"],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "FarmCoreTests", dependencies: ["FarmCore", "FarmInterchange", "TestSupport"]),
        .testTarget(name: "FarmInterchangeTests", dependencies: ["FarmCore", "FarmInterchange", "TestSupport"]),
        .testTarget(
            name: "FarmRenderTests", dependencies: ["FarmCore", "FarmMedia", "FarmRender", "FarmText", "TestSupport"]),
        .testTarget(name: "FarmStoreTests", dependencies: ["FarmCore", "FarmPostgres", "FarmStore", "TestSupport"]),
        .testTarget(
            name: "FarmCoordinatorTests",
            dependencies: [
                "FarmCore", "FarmDataFolder", "FarmRender", "FarmPostgres", "FarmStore", "FarmWire", "FarmCoordinator",
                "TestSupport", logging,
            ]),
        .testTarget(
            name: "FarmHTTPTests",
            dependencies: [
                "FarmCore", "FarmPostgres", "FarmStore", "FarmHTTP", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // Messages through their frames, the decoder under fuzzed bytes, and real sockets in one process.
        .testTarget(name: "FarmWireTests", dependencies: ["FarmCore", "FarmWire"]),
        // The worker's loop on a scripted coordinator, a hand-moved clock and a stand-in renderer.
        .testTarget(
            name: "FarmWorkerTests", dependencies: ["FarmCore", "FarmRender", "FarmWire", "FarmWorker", logging]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FarmCore", "FarmDataFolder", "FarmMedia", "FarmRender", "FarmPostgres", "FarmStore", "FarmWire",
                "TestSupport",
            ]
        ),
    ]
)
