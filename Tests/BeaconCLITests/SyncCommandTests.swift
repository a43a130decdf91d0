import BeaconTesting
import Foundation
import GRDB
import Testing

/// `beacon sync`: both feed shapes, from a file and from a running collector's
/// `/v1/config`.
@Suite("beacon sync", .timeLimit(.minutes(2)))
struct SyncCommandTests {
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The stored token and the `remote_config` records' bodies by id.
    static func stored(_ store: String) throws -> (token: String?, settings: [String: String]) {
        try StoreFile.open(store).read { db in
            let token = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'sync.version_token'")
            let rows = try Row.fetchAll(db, sql: "SELECT id, body FROM sync_records WHERE collection = 'remote_config'")
            var settings: [String: String] = [:]
            for row in rows {
                let body: Data = row[1]
                settings[row[0]] = String(decoding: body, as: UTF8.self)
            }
            return (token, settings)
        }
    }

    @Test func importsTheGenericFeedAndTheConfigFeedShape() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/s.sqlite"
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets").path
        let generic = try await BeaconProcess.run(["sync", "--db", store, "--from", assets + "/sync-feed-seed.json"])
        #expect(generic.status == 0, "\(generic.stderr)")

        let config = directory + "/config-feed.json"
        try Self.write(#"{"settings": {"batchSize": 50, "blocklist": ["Debug Event"]}, "deleted": ["sampling"], "version_token": "c1"}"#, to: config)
        let first = try await BeaconProcess.run(["sync", "--db", store, "--from", config])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("c1"), "\(first.stdout)")
        var now = try Self.stored(store)
        #expect(now.token == "c1")
        #expect(now.settings.keys.sorted() == ["batchSize", "blocklist"])

        try Self.write(#"{"settings": {"batchSize": 0}, "version_token": "c2"}"#, to: config)
        let refused = try await BeaconProcess.run(["sync", "--db", store, "--from", config])
        #expect(refused.status == 2)
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stderr.contains("settings.batchSize"), "\(refused.stderr)")
        now = try Self.stored(store)
        #expect(now.token == "c1", "a refused answer changes nothing")
    }

    @Test("a feed file that cannot be is refused saying why, and changes nothing")
    func feedFilesThatCannotBe() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/s.sqlite"
        try Self.write(#"{"users": [{"id": "u1"}], "version_token": "v1"}"#, to: directory + "/good.json")
        #expect(try await BeaconProcess.run(["sync", "--db", store, "--from", directory + "/good.json"]).status == 0)

        // One byte past the bound, sparse: refused before it is read whole.
        let huge = directory + "/huge.json"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)
        try handle.close()
        try Self.write(#"{"users": [{"id": "u1", "n": 1e400}], "version_token": "v2"}"#, to: directory + "/range.json")
        let cases: [(from: String, reason: String)] = [
            (huge, "holds more than 67108864 bytes (64 MiB), the most a feed may hold"),
            (directory + "/range.json", "a number beyond ±1.8e308"),
            (directory + "/missing.json", "No such file or directory"),
            (directory, "it is a directory"),
        ]
        for (from, reason) in cases {
            let result = try await BeaconProcess.run(["sync", "--db", store, "--from", from])
            #expect(result.status == 2, "\(from): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(from): \(result.stderr)")
            #expect(result.stderr.contains(reason), "\(from): \(result.stderr)")
        }
        #expect(try Self.stored(store).token == "v1", "nothing refused changed the store")
    }

    @Test func importsFromARunningCollectorsConfigFeed() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        let store = directory + "/s.sqlite"
        let config = directory + "/remote-config.json"
        try Self.write(#"{"settings": {"batchSize": 40, "sampling": {"Page Viewed": 0.5}}}"#, to: config)
        let collector = try RunningCollector(arguments: ["--config", config], directory: directory)
        defer { collector.stop() }
        let url = try await collector.address() + "/v1/config"

        let first = try await BeaconProcess.run(["sync", "--db", store, "--from", url])
        #expect(first.status == 0, "\(first.stderr)")
        let firstStored = try Self.stored(store)
        #expect(firstStored.settings["batchSize"]?.contains("40") == true)
        #expect(firstStored.settings["sampling"] != nil)

        try Self.write(#"{"settings": {"batchSize": 25}}"#, to: config)
        let second = try await BeaconProcess.run(["sync", "--db", store, "--from", url])
        #expect(second.status == 0, "\(second.stderr)")
        let secondStored = try Self.stored(store)
        #expect(secondStored.token != firstStored.token)
        #expect(secondStored.settings["batchSize"]?.contains("25") == true)
        #expect(secondStored.settings["sampling"] == nil, "deleted since the first token")
    }
}

/// `beacon collector --port 0 ...` in the background, its stdout in a file.
final class RunningCollector {
    let process = ChildProcess()
    let output: String

    /// Starts the collector on `port` (0: a free one) with `arguments`, its output in
    /// `directory`; `bind` replaces `--port PORT` when given (`["--listen", "127.0.0.1:0"]`).
    init(arguments: [String], directory: String, port: Int = 0, bind: [String]? = nil) throws {
        output = directory + "/collector-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.executableURL = URL(fileURLWithPath: BeaconProcess.path)
        process.arguments = ["collector"] + (bind ?? ["--port", String(port)]) + ["--log-level", "warning"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// `http://127.0.0.1:PORT`, once the collector printed it; throws after `timeout`.
    func address(timeout: Duration = .seconds(45)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""  // not written yet
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return String(line.dropFirst("listening on ".count))
            }
            guard process.isRunning else { throw CollectorProcessError("the collector exited with \(process.terminationStatus)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CollectorProcessError("the collector printed no address within \(timeout)")
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// The background collector did not come up.
struct CollectorProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
