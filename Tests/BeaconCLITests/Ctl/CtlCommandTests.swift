import Beacon
import BeaconTesting
import Foundation
import Testing

/// `beacon ctl` against a real engine serving its control channel in this process.
@Suite("beacon ctl", .timeLimit(.minutes(3)))
struct CtlCommandTests {
    struct Served {
        let directory: String
        let store: String
        let engine: BeaconEngine<ContinuousClock>
        let task: Task<Void, any Error>
        let control: ControlServer
        let sender: RecordingSender
        /// Whether ``stop()`` removes the directory (it made it).
        var ownsDirectory = true

        /// An engine on `name` in `directory` (a new temporary one when `nil`), sending to
        /// `sender` with a manual policy, serving its control channel.
        static func start(
            sender: RecordingSender = RecordingSender(), in given: String? = nil, name: String = "s.sqlite", batchSize: Int = 100
        ) async throws -> Served {
            let directory = try given ?? BeaconProcess.temporaryDirectory()
            let store = directory + "/" + name
            let engine = BeaconEngine(
                queue: try SQLiteEventQueue(path: store), destination: Destination(sender: sender),
                settings: EngineSettings(policy: .manual, batchSize: batchSize))
            let task = Task { try await engine.run() }
            let control = try await engine.serveControl()
            return Served(
                directory: directory, store: store, engine: engine, task: task, control: control, sender: sender,
                ownsDirectory: given == nil)
        }

        func stop() async throws {
            await control.close()
            await engine.beginShutdown()
            try await task.value
            if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
        }
    }

    @Test("with no engine serving the store: exit 1 and one line naming the socket")
    func noEngine() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let store = directory + "/s.sqlite"
        let result = try await BeaconProcess.run(["ctl", "--db", store, "status"])
        #expect(result.status == 1)
        #expect(result.stderr == "beacon: no engine serves \(store) (no control socket at \(store).control)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("bad usage exits 2", arguments: [
        ["frobnicate"], ["policy"], ["batch-size", "many"], ["batch-size", "0"], ["flush", "now"], ["pause", "a", "b"],
        ["watch", "--interval-ms", "99"], ["watch", "--interval-ms", "1e300"], ["watch", "--count", "0"],
        ["watch", "--count", "-1"], ["watch", "--count", "9223372036854775808"], ["status", "--count", "2"], ["watch", "now"],
        // Refused before any engine is asked (none serves /tmp/nowhere.sqlite: that would be exit 1).
        ["policy", "count 1e300"], ["policy", "every nan s"], ["policy", ""], ["policy", "count -1"], ["batch-size", "-1"],
        ["log", "--limit", "0"], ["log", "--limit", "1001"], ["log", "--limit", "1e300"], ["status", "--limit", "3"], ["log", "now"],
    ])
    func badUsage(arguments: [String]) async throws {
        let result = try await BeaconProcess.run(["ctl", "--db", "/tmp/nowhere.sqlite"] + arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("ctl log: each command an operator gave, who gave it, applied or refused; read from the store, with or without an engine")
    func operatorLog() async throws {
        // A directory of the test's own: stopping the engine leaves the store for the last read.
        let served = try await Served.start(in: try BeaconProcess.temporaryDirectory())
        #expect(try await BeaconProcess.run(["ctl", "--db", served.store, "pause"]).status == 0)
        #expect(try await BeaconProcess.run(["ctl", "--db", served.store, "policy", "count 9"]).status == 0)
        #expect(try await BeaconProcess.run(["ctl", "--db", served.store, "retry-now", "ghost"]).status == 1)
        #expect(try await BeaconProcess.run(["ctl", "--db", served.store, "status"]).status == 0)
        let json = try await BeaconProcess.run(["ctl", "--db", served.store, "log", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let actions = try #require(object["actions"] as? [[String: Any]])
        #expect(actions.compactMap { $0["command"] as? String } == ["retry-now", "policy", "pause"], "status is a read: \(actions)")
        #expect(actions.compactMap { $0["applied"] as? Bool } == [false, true, true])
        #expect((actions[0]["reason"] as? String)?.contains("ghost") == true)
        // Each from its own ctl process: three pids, the user's uid.
        let pids = Set(actions.compactMap { $0["peerPid"] as? Int })
        #expect(pids.count == 3 && !pids.contains(Int(getpid())))
        #expect(actions.allSatisfy { ($0["peerUid"] as? Int) == Int(geteuid()) })
        try await served.stop()
        // The engine gone, the log is still read from the store.
        let text = try await BeaconProcess.run(["ctl", "--db", served.store, "log", "--limit", "2"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[1].contains("retry-now \"ghost\"") && lines[1].contains("refused: "), "\(text.stdout)")
        #expect(lines[2].contains("policy \"count 9\"") && lines[2].contains("applied"))
        try? FileManager.default.removeItem(atPath: served.directory)
    }

    @Test("the control protocol's dead-letter verbs point to beacon dead")
    func deadVerbsPointToDead() async throws {
        let result = try await BeaconProcess.run(["ctl", "--db", "/tmp/nowhere.sqlite", "dead-list"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("'dead-list' is for 'beacon dead': use 'beacon dead --db FILE list ...'"), "\(result.stderr)")
    }

    @Test("every verb round-trips: status --json shows what policy and batch-size set")
    func verbsRoundTrip() async throws {
        let served = try await Served.start()
        let policy = try await BeaconProcess.run(["ctl", "--db", served.store, "policy", "count 7"])
        #expect(policy.status == 0, "\(policy.stderr)")
        let size = try await BeaconProcess.run(["ctl", "--db", served.store, "batch-size", "250"])
        #expect(size.status == 0, "\(size.stderr)")
        let offline = try await BeaconProcess.run(["ctl", "--db", served.store, "offline"])
        #expect(offline.status == 0)
        let refusedFlush = try await BeaconProcess.run(["ctl", "--db", served.store, "flush"])
        #expect(refusedFlush.status == 1)
        #expect(refusedFlush.stderr.contains("the engine refused 'flush': the engine is offline"))

        let status = try await BeaconProcess.run(["ctl", "--db", served.store, "status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["policy"] as? String == "count 7")
        #expect(json["batchSize"] as? Int == 250)
        #expect(json["offline"] as? Bool == true)
        #expect(json["depth"] as? Int == 0)
        let destinations = try #require(json["destinations"] as? [[String: Any]])
        #expect(destinations.first?["name"] as? String == "default")
        #expect(destinations.first?["paused"] as? Bool == false)

        let online = try await BeaconProcess.run(["ctl", "--db", served.store, "online"])
        #expect(online.status == 0)
        let flush = try await BeaconProcess.run(["ctl", "--db", served.store, "flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        let text = try await BeaconProcess.run(["ctl", "--db", served.store, "status"])
        #expect(text.stdout.contains("policy       count 7"))
        #expect(text.stdout.contains("offline      no"))
        #expect(served.engine.settings.current.policy == .count(7))
        try await served.stop()
    }

    @Test("watch prints one JSON status per snapshot and stops after --count")
    func watchPrintsSnapshots() async throws {
        let served = try await Served.start()
        let result = try await BeaconProcess.run(["ctl", "--db", served.store, "watch", "--interval-ms", "100", "--count", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(json?["depth"] is Int && json?["policy"] is String, "\(line)")
        }
        try await served.stop()
    }

    @Test("another uid is refused: by the socket's mode 0600, and past it by the credential check")
    func otherUIDIsRefused() async throws {
        try #require(getuid() == 0, "the test switches to uid 65534 with setpriv, which needs root")
        let served = try await Served.start()
        let socket = served.store + ".control"
        let mode = try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", BeaconProcess.path, "ctl", "--db", served.store, "status"]
        let blocked = try await BeaconProcess.run(asNobody, stdinBytes: nil, executable: "/usr/bin/setpriv")
        #expect(blocked.status == 1)
        #expect(blocked.stderr.contains("permission denied"), "\(blocked.stderr)")

        // Only here, to reach the engine's own check: open the socket's mode to everyone.
        #expect(chmod(socket, 0o666) == 0)
        let refused = try await BeaconProcess.run(asNobody, stdinBytes: nil, executable: "/usr/bin/setpriv")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused: peer uid 65534"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(served.control.counts.refused == 1)
        try await served.stop()
    }
}
