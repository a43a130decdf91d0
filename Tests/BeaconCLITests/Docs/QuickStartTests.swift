import BeaconTesting
import Foundation
import GRDB
import Testing

/// The README's example program, run as a newcomer runs it: against a real collector
/// process (`beacon collector --db FILE`), on a store of its own. It tracks two events,
/// runs the engine as a service, shuts it down gracefully, and the collector's database
/// holds both events, once each; run again on the same store, it sends only its new ones.
@Suite("The README's example program runs end to end; its manifest resolves", .timeLimit(.minutes(3)))
struct QuickStartTests {
    /// The example, built beside `beacon` by `swift build` (the `QuickStart` target).
    static var executable: String {
        URL(fileURLWithPath: BeaconProcess.path).deletingLastPathComponent().appendingPathComponent("QuickStart").path
    }

    static func stored(_ database: String) throws -> [Row] {
        let queue = try StoreFile.open(database)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT message_id, name, user_id, json FROM collector_events ORDER BY name")
        }
    }

    @Test func tracksDeliversAndStops() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable), "\(Self.executable) is not built")
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let (collector, base) = try await AgentCommandTests.diskCollector(in: directory)
        defer { collector.stop() }
        let store = directory + "/events.sqlite"

        let first = try await BeaconProcess.run([base, store], stdinBytes: nil, executable: Self.executable, limit: .seconds(60))
        #expect(first.status == 0 && !first.signalled, "exit \(first.status): \(first.stderr)")
        #expect(first.stdout == "0 events left in \(store)\n", "\(first.stdout)")
        collector.stop()
        let rows = try Self.stored(directory + "/collector.sqlite")
        #expect(rows.map { $0["name"] as String? } == ["Order Completed", "Signed Up"], "\(rows)")
        #expect(rows.allSatisfy { ($0["user_id"] as String?) == "u-42" })
        let signedUp = try #require(rows.last.map { $0["json"] as String })
        #expect(signedUp.contains(#""plan":"pro""#) && signedUp.contains(#""seats":3"#), "\(signedUp)")

        // The same store again: two new events, the first two not sent twice.
        let (again, againBase) = try await AgentCommandTests.diskCollector(in: directory)
        defer { again.stop() }
        let second = try await BeaconProcess.run([againBase, store], stdinBytes: nil, executable: Self.executable, limit: .seconds(60))
        #expect(second.status == 0, "\(second.stderr)")
        again.stop()
        let all = try Self.stored(directory + "/collector.sqlite")
        #expect(all.count == 4, "\(all.map { $0["message_id"] as String })")
    }

    /// The README's `Package.swift` for a service, as a newcomer uses it: beside a clone
    /// named `beacon` (the `.package(path:)` its comment offers), SwiftPM resolves it and
    /// finds every product it names (`plugin --list` loads the whole package graph).
    @Test func theReadmesManifestResolvesAgainstThisPackage() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let manifest = try DocsAgreementTests.read("Examples/Manifest/Package.swift")
        let remote = #".package(url: "https://github.com/YOUR-ORG/beacon.git", branch: "main"),  // or .package(path: "../beacon")"#
        #expect(manifest.contains(remote), "the manifest's Beacon line changed: update this test")
        let service = directory + "/MyService"
        try FileManager.default.createDirectory(atPath: service + "/Sources/MyService", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory + "/beacon", withDestinationPath: DocsAgreementTests.root.path)
        try manifest.replacingOccurrences(of: remote, with: #".package(path: "../beacon"),"#)
            .write(toFile: service + "/Package.swift", atomically: true, encoding: .utf8)
        try "print(1)\n".write(toFile: service + "/Sources/MyService/main.swift", atomically: true, encoding: .utf8)
        let swift = "/usr/bin/env"
        for arguments in [["swift", "package", "--package-path", service, "resolve"], ["swift", "package", "--package-path", service, "plugin", "--list"]] {
            let result = try await BeaconProcess.run(arguments, stdinBytes: nil, executable: swift, limit: .seconds(150))
            #expect(result.status == 0 && !result.signalled, "\(arguments.joined(separator: " ")): \(result.stderr.suffix(1_500))")
        }
        // The versions it asks for are the ones Beacon itself builds with.
        let ours = try DocsAgreementTests.read("Package.swift")
        for line in manifest.split(separator: "\n") where line.contains("from: ") && !line.contains("beacon") {
            let package = line.trimmingCharacters(in: .whitespaces).dropLast(line.hasSuffix(",") ? 1 : 0)
            #expect(ours.contains(String(package)), "Package.swift does not depend on \(package)")
        }
    }

    @Test("With the collector down, the events stay in the store and the program says so")
    func collectorDownKeepsTheEvents() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/events.sqlite"
        let result = try await BeaconProcess.run(
            [AgentCommandTests.nowhere, store], stdinBytes: nil, executable: Self.executable, limit: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "2 events left in \(store)\n", "\(result.stdout)")
    }
}
