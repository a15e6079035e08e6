// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "farm",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "farm", targets: ["Coordinator"]),
        .executable(name: "farm-worker", targets: ["Worker"]),
        .executable(name: "farm-bench", targets: ["Bench"]),
        .library(name: "Shared", targets: ["Shared"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"])]
        ),
        .systemLibrary(name: "CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "CSpawn"),
        .target(
            name: "Shared",
            dependencies: [
                "CFFmpeg", "CZeroMQ", "CPostgres", "CSpawn",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "Coordinator",
            dependencies: [
                "Shared",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "Worker",
            dependencies: [
                "Shared",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "Bench",
            dependencies: [
                "Shared",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "SharedTests", dependencies: ["Shared"]),
    ]
)
