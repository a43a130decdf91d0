// swift-tools-version:6.0
import PackageDescription

// Import direction (fixed):
//   BeaconWire <- BeaconPlan   (tracking plans: the JSON Schema validator; more to come, issue 43)
//   BeaconWire <- Beacon <- BeaconDashboard <- BeaconTerminal <- beacon
//   BeaconWire <- BeaconCollector <- beacon
//   BeaconSimulation <- beacon   (scenarios, verdicts, reports and charts: Foundation only)
//   BeaconPlan <- beacon         (beacon plan lint and check)
// README.md's "Layout" section says what lives in each folder of Sources/ and Tests/.
let package = Package(
    name: "Beacon",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BeaconWire", targets: ["BeaconWire"]),
        .library(name: "BeaconPlan", targets: ["BeaconPlan"]),
        .library(name: "Beacon", targets: ["Beacon"]),
        .library(name: "BeaconCollector", targets: ["BeaconCollector"]),
        .library(name: "BeaconTesting", targets: ["BeaconTesting"]),
        .library(name: "BeaconSimulation", targets: ["BeaconSimulation"]),
        .executable(name: "beacon", targets: ["beacon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // pkgConfig: a machine without libdeflate-dev gets SwiftPM's `apt-get install libdeflate-dev` hint
        // instead of "'libdeflate.h' file not found" (its .pc file gives plain -ldeflate).
        .systemLibrary(name: "CLibdeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),

        .target(name: "BeaconWire"),
        .target(name: "BeaconPlan", dependencies: ["BeaconWire"]),
        .target(
            name: "Beacon",
            dependencies: [
                "BeaconWire", "CLibdeflate",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "BeaconCollector",
            dependencies: [
                "BeaconWire", "CZlib", "CLibdeflate",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "BeaconDashboard", dependencies: ["Beacon", "BeaconWire"]),
        .target(name: "BeaconSimulation"),
        .target(name: "BeaconTerminal", dependencies: ["BeaconDashboard", "CNCurses"]),
        .target(
            name: "BeaconTesting",
            dependencies: [
                "Beacon", "BeaconCollector", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "beacon",
            dependencies: [
                "Beacon", "BeaconCollector", "BeaconDashboard", "BeaconTerminal", "BeaconSimulation", "BeaconPlan",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The README's example program and the docs' snippets, built with everything else so
        // that the code they show compiles; DocsAgreementTests checks they show it byte for
        // byte, and QuickStartTests runs the program against a real collector.
        .executableTarget(
            name: "QuickStart",
            dependencies: [
                "Beacon", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/QuickStart"
        ),
        .target(
            name: "BeaconSnippets",
            dependencies: [
                "Beacon", "BeaconPlan", "BeaconTesting", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/Snippets"
        ),

        .testTarget(name: "BeaconWireTests", dependencies: ["BeaconWire"]),
        .testTarget(name: "BeaconPlanTests", dependencies: ["BeaconPlan", "BeaconWire"], exclude: ["Suite", "Plans"]),
        .testTarget(
            name: "BeaconTests",
            dependencies: [
                "Beacon", "BeaconTesting", "BeaconSnippets", "CZlib", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BeaconCollectorTests",
            dependencies: [
                "BeaconCollector", "Beacon", "BeaconDashboard", "BeaconTesting", "CZlib",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "BeaconEndToEndTests",
            dependencies: [
                "Beacon", "BeaconCollector", "BeaconDashboard", "BeaconTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "BeaconDashboardTests", dependencies: ["BeaconDashboard", "BeaconTesting"], exclude: ["Golden"]
        ),
        .testTarget(name: "BeaconSimulationTests", dependencies: ["BeaconSimulation"], exclude: ["Golden"]),
        .testTarget(
            name: "BeaconCLITests",
            dependencies: [
                "Beacon", "BeaconTesting", "BeaconSimulation", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Agent/Fixtures"]
        ),
    ]
)
