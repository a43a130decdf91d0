import Foundation
import GRDB
import Testing

/// `beacon demo --config FILE` in a real terminal: edits of the config file reach the
/// running engine and show in the header.
@Suite("beacon demo with remote config under tmux", .serialized)
struct DemoRemoteConfigTmuxTests {
    /// The version token the demo stored with the config it applied (nil before any).
    static func storedToken(_ store: String) throws -> String? {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: store, configuration: configuration).read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'sync.version_token'")
        }
    }

    /// The header's remote-config line, if shown.
    static func configLine(_ screen: String) -> String? {
        screen.split(separator: "\n").first { $0.hasPrefix(" config ") }.map(String.init)
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test("a batch-size edit reaches the running demo and its header; broken edits keep it and show a marker",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(2)))
    func configEditsReachTheDashboard() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/demo.sqlite"
        let config = directory + "/remote-config.json"
        try Self.write(#"{"settings": {"batchSize": 40}}"#, to: config)
        let tmux = try TmuxSession(
            [BeaconProcess.path, "demo", "--rate", "0", "--db", store, "--policy", "manual",
             "--config", config, "--config-interval", "300ms"],
            width: 80, height: 24, directory: directory)
        defer { tmux.kill() }

        let first = try await tmux.waitForScreen("the first config applied", timeout: .seconds(40)) { screen in
            DashboardText.header(screen).contains("batch 40") && (Self.configLine(screen)?.contains("synced") ?? false)
        }
        let firstToken = try #require(try Self.storedToken(store))
        #expect(Self.configLine(first)?.contains("config \(firstToken)") == true, "\(first)")
        #expect(Self.configLine(first)?.contains("every 300ms") == true, "\(first)")
        #expect(first.split(separator: "\n").allSatisfy { $0.count <= 80 })

        try Self.write(#"{"settings": {"batchSize": 25}}"#, to: config)
        let second = try await tmux.waitForScreen("the new batch size and version", timeout: .seconds(20)) { screen in
            DashboardText.header(screen).contains("batch 25")
                && !(Self.configLine(screen)?.contains("config \(firstToken)") ?? true)
        }
        let secondToken = try #require(try Self.storedToken(store))
        #expect(secondToken != firstToken)
        #expect(Self.configLine(second)?.contains("config \(secondToken)") == true, "\(second)")

        // A value engines would refuse: the collector refuses the file and keeps serving
        // the last good version, with a warning the header shows.
        try Self.write(#"{"settings": {"batchSize": 0}}"#, to: config)
        let refused = try await tmux.waitForScreen("the feed's warning about the refused value", timeout: .seconds(20)) { screen in
            Self.configLine(screen)?.contains("feed warning") ?? false
        }
        #expect(DashboardText.header(refused).contains("batch 25"), "the last good settings stay: \(refused)")
        #expect(try Self.storedToken(store) == secondToken)

        try Self.write(#"{"settings": {"batchSize": 26}}"#, to: config)
        _ = try await tmux.waitForScreen("the fixed file applied and the warning gone", timeout: .seconds(20)) { screen in
            DashboardText.header(screen).contains("batch 26") && !(Self.configLine(screen)?.contains("feed warning") ?? true)
        }
        let thirdToken = try #require(try Self.storedToken(store))

        // Not JSON at all: the same, the last good settings stay.
        try Self.write(#"{"settings": {"batchSize": "#, to: config)
        let broken = try await tmux.waitForScreen("the feed's warning about the broken file", timeout: .seconds(20)) { screen in
            Self.configLine(screen)?.contains("feed warning") ?? false
        }
        #expect(DashboardText.header(broken).contains("batch 26"), "the last good settings stay: \(broken)")
        #expect(Self.configLine(broken)?.contains("config \(thirdToken)") == true, "\(broken)")

        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
    }

    @Test("bad --config and --config-interval values exit 2 with one line")
    func refusesBadValues() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let good = directory + "/good.json"
        let broken = directory + "/broken.json"
        try Self.write(#"{"settings": {"batchSize": 40}}"#, to: good)
        try Self.write(#"{"batchSize": 40}"#, to: broken)
        for arguments in [
            ["demo", "--config", directory + "/missing.json"],
            ["demo", "--config", broken],
            ["demo", "--config-interval", "5s"],
            ["demo", "--config", good, "--config-interval", "fast"],
            ["demo", "--config", good, "--config-interval", "5"],
            ["demo", "--config", good, "--config-interval", "10ms"],
        ] {
            let result = try await BeaconProcess.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--config"), "\(arguments): \(result.stderr)")
        }
    }
}

extension DemoRemoteConfigTmuxTests {
    @Test("s polls the config feed at once, long before the interval",
          .enabled(if: TmuxSession.isInstalled, "tmux is not installed; the terminal test needs it"),
          .timeLimit(.minutes(2)))
    func syncKeyPollsNow() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/demo.sqlite"
        let config = directory + "/remote-config.json"
        try Self.write(#"{"settings": {"batchSize": 40}}"#, to: config)
        let tmux = try TmuxSession(
            [BeaconProcess.path, "demo", "--rate", "0", "--db", store, "--config", config, "--config-interval", "1h"],
            width: 80, height: 24, directory: directory)
        defer { tmux.kill() }
        try await tmux.waitForScreen("the first config applied", timeout: .seconds(40)) { screen in
            DashboardText.header(screen).contains("batch 40") && (Self.configLine(screen)?.contains("every 1h") ?? false)
        }
        let firstToken = try #require(try Self.storedToken(store))

        try Self.write(#"{"settings": {"batchSize": 125}}"#, to: config)
        try tmux.press("s")
        let synced = try await tmux.waitForScreen("the new batch size after s", timeout: .seconds(20)) { screen in
            DashboardText.header(screen).contains("batch 125")
        }
        let secondToken = try #require(try Self.storedToken(store))
        #expect(secondToken != firstToken)
        #expect(Self.configLine(synced)?.contains("config \(secondToken)") == true, "\(synced)")
        try tmux.press("q")
        #expect(try await tmux.waitForExit() == 0)
    }
}
