import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Other vendors' Segment-compatible client libraries (forks of Segment's analytics-python),
/// driven by `Fixtures/vendor_clients.py`; `.ci/run` installs each one, pinned, in a folder of
/// its own under `$BEACON_VENDOR_CLIENTS` (default `~/.cache/beacon/vendor-clients`).
enum VendorClients {
    /// The driver's client names (its `CLIENTS` table).
    static let names = ["customerio", "hightouch", "june", "journify", "findhotel", "astronomer", "segmentio"]

    /// The driver script beside this file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vendor_clients.py").path

    /// `python3` from `PATH`.
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The driver's `--check`: which libraries import, and why the others do not.
    static let check: (available: Set<String>, missing: [String: String]) = {
        guard let python else { return ([], ["python3": "not on PATH"]) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("vendor-check-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard let pid = try? spawn(python, [script, "--check"], streams: { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }) else { return ([], ["python3": "could not be started"]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard let data = FileManager.default.contents(atPath: output),
            let report = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return ([], ["vendor_clients.py --check": "printed no report"]) }
        return (Set(report["available"] as? [String] ?? []), report["missing"] as? [String: String] ?? [:])
    }()

    /// Under CI every library must be there (`.ci/run` installs them): the test fails instead of skipping.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    static var allAvailable: Bool { check.missing.isEmpty && check.available.isSuperset(of: names) }
}

extension ProcessHeavy {
    /// Acceptance (#22, finding 13): other vendors' Segment-compatible client libraries deliver
    /// identify, track, page, screen and group calls to `beacon collector` and to `beacon agent`
    /// with no client error, each call stored once at the collector. The write key is required
    /// on both, so the way each library sends it is checked too.
    @Suite("Other vendors' Segment-compatible client libraries", .timeLimit(.minutes(3)))
    struct VendorClientTests {
        static let writeKey = "wk-vendor"

        /// One driver run: its exit status, its report, and its stderr.
        struct Run {
            var status: Int32
            var report: [String: Any]
            var stderr: String

            var sent: [String] { report["sent"] as? [String] ?? [] }
            var acknowledged: Set<String> { Set(report["acknowledged"] as? [String] ?? []) }
            var calls: [String] { report["calls"] as? [String] ?? [] }
            var errors: [String] { report["errors"] as? [String] ?? [] }
            /// What the server was sent and answered, for the failure message (repeats counted once).
            var exchanges: String {
                var lines: [String] = []
                var counts: [String: Int] = [:]
                for request in (report["requests"] as? [[String: Any]]) ?? [] {
                    let fields = ["method", "path", "status", "auth", "apiKeyHeader", "contentEncoding", "bodyKeys", "answer", "exception"]
                    let line = fields.compactMap { key in request[key].map { "\(key)=\($0)" } }.joined(separator: " ")
                    if counts[line] == nil { lines.append(line) }
                    counts[line, default: 0] += 1
                }
                return lines.map { "\(counts[$0] ?? 1)× \($0)" }.joined(separator: "; ")
            }
            /// Exit 0, no client error, every call posted and acknowledged.
            var succeeded: Bool {
                status == 0 && errors.isEmpty && !calls.isEmpty && sent.count == calls.count && Set(sent).isSubset(of: acknowledged)
            }
        }

        static func drive(_ python: String, client: String, base: String, tag: String, gzip: Bool) async throws -> Run {
            var arguments = [VendorClients.script, client, base, writeKey, tag]
            if gzip { arguments.append("--gzip") }
            let result = try await BeaconProcess.run(arguments, stdinBytes: nil, executable: python, limit: .seconds(60))
            let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
            let report = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return Run(status: result.status, report: report, stderr: result.stderr)
        }

        /// The collector's stored events: messageId → (type, userId).
        static func stored(_ database: String) throws -> [String: (type: String, userId: String?)] {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: database, configuration: configuration)
            let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT message_id, type, user_id FROM collector_events") }
            var events: [String: (type: String, userId: String?)] = [:]
            for row in rows { events[row["message_id"]] = (row["type"], row["user_id"]) }
            return events
        }

        /// Checks one run: exit 0, no client error, every call posted and acknowledged (else one
        /// issue saying what the server was sent and answered), and each of its events stored once
        /// at the collector with the call's type and user.
        static func expectDelivered(
            _ run: Run, to target: String, tag: String, stored: [String: (type: String, userId: String?)]
        ) {
            let label = "\(run.report["client"] ?? "?") → \(target)"
            guard run.succeeded else {
                Issue.record(
                    """
                    \(label): exit \(run.status), \(run.acknowledged.count) of \(run.calls.count) calls acknowledged; \
                    errors \(run.errors); exchanges: \(run.exchanges); stderr: \(run.stderr.suffix(1500))
                    """)
                return
            }
            #expect(Set(run.sent).count == run.sent.count, "\(label): a messageId posted for two calls")
            let types = run.sent.compactMap { stored[$0]?.type }
            #expect(types.count == run.sent.count, "\(label): not at the collector: \(run.sent.filter { stored[$0] == nil })")
            #expect(types.sorted() == run.calls.sorted(), "\(label): stored types \(types) for calls \(run.calls)")
            #expect(run.sent.allSatisfy { stored[$0].map { $0.userId == "user-\(tag)" } ?? true }, "\(label): a stored event lost its userId")
        }

        @Test(
            "identify, track, page, screen and group from each library reach the collector directly and through the agent, each stored once",
            .enabled(if: VendorClients.allAvailable || VendorClients.isCI, "python3 with the vendor client libraries is not installed (.ci/run installs them)"),
            arguments: VendorClients.names)
        func delivers(client: String) async throws {
            let python = try #require(VendorClients.python, "python3 is required under CI")
            try #require(
                VendorClients.check.available.contains(client),
                "\(client) is required under CI (.ci/run installs it): \(VendorClients.check.missing[client] ?? VendorClients.check.missing.description)")
            let started = ContinuousClock.now
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let database = directory + "/collector.sqlite"
            let collector = try RunningCollector(arguments: ["--db", database, "--write-key", Self.writeKey], directory: directory)
            defer { collector.stop() }
            let collectorBase = try await collector.address()
            let agent = try RunningAgent(
                store: directory + "/agent.sqlite", endpoints: [collectorBase],
                arguments: [
                    "--write-key", Self.writeKey, "--destination-write-key", Self.writeKey,
                    "--policy", "count 100 or 100ms", "--log-level", "warning",
                ],
                directory: directory)
            defer { agent.stop() }
            let agentBase = try await agent.address()

            // Both at once: straight to the collector (the library's defaults), and to the agent
            // with the library's gzip setting on where it has one.
            let directTag = "direct", agentTag = "agent"
            async let directRun = Self.drive(python, client: client, base: collectorBase, tag: directTag, gzip: false)
            async let agentRun = Self.drive(python, client: client, base: agentBase, tag: agentTag, gzip: true)
            let (direct, throughAgent) = try await (directRun, agentRun)

            // The collector answers 200 once the batch is committed: the direct events are there now.
            Self.expectDelivered(direct, to: "collector", tag: directTag, stored: try Self.stored(database))

            // The agent forwards on its own time: wait (bounded) for what it acknowledged to reach the collector.
            var stored = try Self.stored(database)
            let deadline = ContinuousClock.now + .seconds(15)
            while !throughAgent.acknowledged.allSatisfy({ stored[$0] != nil }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                stored = try Self.stored(database)
            }
            Self.expectDelivered(throughAgent, to: "agent", tag: agentTag, stored: stored)
            if direct.succeeded && throughAgent.succeeded {
                // Nothing else was stored: each call once, no stray event.
                #expect(stored.count == direct.sent.count + throughAgent.sent.count, "stored \(stored.count) events")
            }
            #expect(ContinuousClock.now - started < .seconds(30), "\(client) took \(ContinuousClock.now - started)")
        }
    }
}
