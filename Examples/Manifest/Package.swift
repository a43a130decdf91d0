// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MyService",
    platforms: [.macOS(.v15)],  // and Linux
    dependencies: [
        .package(url: "https://github.com/YOUR-ORG/beacon.git", branch: "main"),  // or .package(path: "../beacon")
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "MyService",
            dependencies: [
                .product(name: "Beacon", package: "beacon"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
