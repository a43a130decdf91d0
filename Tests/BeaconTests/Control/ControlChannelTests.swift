import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Synchronization
import Testing

/// The control channel over real Unix sockets in a temporary directory, against a real
/// engine on an SQLite store.
@Suite("Control channel", .timeLimit(.minutes(2)))
struct ControlChannelTests {
    /// An engine on a fresh store, running, serving its control channel.
    struct Running {
        let directory: String
        let store: String
        let sender: RecordingSender
        let engine: BeaconEngine<ContinuousClock>
        let task: Task<Void, any Error>
        let control: ControlServer

        var client: ControlClient { ControlClient(store: store) }

        static func start(settings: EngineSettings = EngineSettings(policy: .manual)) async throws -> Running {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bc-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let store = directory + "/s.sqlite"
            let sender = RecordingSender()
            let engine = BeaconEngine(
                queue: try SQLiteEventQueue(path: store), destination: Destination(sender: sender), settings: settings)
            let task = Task { try await engine.run() }
            let control = try await engine.serveControl()
            return Running(directory: directory, store: store, sender: sender, engine: engine, task: task, control: control)
        }

        func stop() async throws {
            await control.close()
            await engine.beginShutdown()
            try await task.value
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static func applied(_ response: ControlResponse) throws -> JSONValue {
        switch response.outcome {
        case .success(let result): return result
        case .failure(let refusal): throw refusal
        }
    }

    static func refusal(_ response: ControlResponse) -> String? {
        if case .failure(let refusal) = response.outcome { return refusal.reason }
        return nil
    }

    @Test("status reflects a policy and a batch size set through the channel; bad ones are refused with a reason")
    func settingsRoundTrip() async throws {
        let running = try await Running.start()
        let client = running.client
        #expect(try Self.applied(await client.send(.policy("count 7"))) == ["policy": "count 7"])
        #expect(try Self.applied(await client.send(.batchSize(50))) == ["batchSize": 50])
        let status = try Self.applied(await client.send(.status, id: 42))
        #expect(status["policy"] == "count 7")
        #expect(status["batchSize"] == 50)
        #expect(status["offline"] == false)
        #expect(status["depth"] == 0)
        #expect(ControlOperationsTests.first(status)?["name"] == "default")
        #expect(ControlOperationsTests.first(status)?["paused"] == false)
        #expect(ControlOperationsTests.first(status)?["pending"] == 0)
        #expect(running.engine.settings.current.policy == .count(7))

        let badSize = try await client.send(.batchSize(0))
        #expect(Self.refusal(badSize)?.contains("1...10000") == true)
        #expect(Self.refusal(try await client.send(.batchSize(10_001))) != nil)
        let badPolicy = try await client.send(.policy("whenever"))
        #expect(Self.refusal(badPolicy)?.contains("cannot read flush policy") == true)
        #expect(running.engine.settings.current.batchSize == 50)

        let counted = try Self.applied(await client.send(.status))
        #expect(counted["commands"] == ["applied": 4, "refused": 3])  // this status counts itself
        #expect(running.control.counts.applied == 4)
        #expect(running.control.counts.refused == 3)
        try await running.stop()
    }

    @Test("offline through the channel stops sending; online drains the backlog")
    func offlineStopsSending() async throws {
        let running = try await Running.start()
        let sentWhileOffline = Atomic<Int>(0)
        let settings = running.engine.settings
        running.sender.setScript { _, _ in
            if settings.current.isOffline { sentWhileOffline.add(1, ordering: .relaxed) }
            return SendResult(.delivered, status: 200)
        }
        let client = running.client
        #expect(try Self.applied(await client.send(.offline)) == ["offline": true])
        #expect(try Self.applied(await client.send(.status))["offline"] == true)
        for index in 0..<5 {
            try await running.engine.tracker.track("Offline \(index)").committed()
        }
        let refusedFlush = try await client.send(.flush)
        #expect(Self.refusal(refusedFlush)?.contains("offline") == true)
        await running.engine.flush()  // bypassing the channel: still nothing may go out
        let pending = try Self.applied(await client.send(.status))
        #expect(pending["depth"] == 5)
        #expect(ControlOperationsTests.first(pending)?["paused"] == false)
        #expect(ControlOperationsTests.first(pending)?["pending"] == 5)
        #expect(ControlOperationsTests.first(pending)?["state"] == "offline")
        #expect(running.sender.batches.isEmpty)

        #expect(try Self.applied(await client.send(.online)) == ["offline": false])
        let batches = await running.sender.waitForSends(1)
        #expect(batches.flatMap(\.events).count == 5)
        #expect(sentWhileOffline.load(ordering: .relaxed) == 0)
        try await running.stop()
    }

    @Test("flush through the channel sends under a manual policy")
    func flushSends() async throws {
        let running = try await Running.start()
        try await running.engine.tracker.track("Flushed").committed()
        #expect(try Self.applied(await running.client.send(.flush)) == ["flushing": true, "backingOff": []])
        let batches = await running.sender.waitForSends(1)
        #expect(batches.first?.events.count == 1)
        try await running.stop()
    }

    @Test("the socket is mode 0600 beside the store, and is removed on close")
    func socketIsPrivate() async throws {
        let running = try await Running.start()
        let path = running.store + ".control"
        #expect(running.control.path == path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.type] as? FileAttributeType) == .typeSocket)
        await running.control.close()
        #expect(!FileManager.default.fileExists(atPath: path))
        await #expect(throws: ControlClientError.self) { _ = try await running.client.send(.status) }
        try await running.stop()
    }
}
