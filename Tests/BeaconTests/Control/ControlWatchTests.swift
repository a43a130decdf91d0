import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// `watch`: live snapshots streamed on one connection.
@Suite("Control channel: watch", .timeLimit(.minutes(2)))
struct ControlWatchTests {
    @Test("watch streams status results with the request's id; a change in the engine shows in a later one")
    func streamsSnapshots() async throws {
        let running = try await ControlChannelTests.Running.start()
        var depths: [Int] = []
        var ids: Set<Int?> = []
        var applied: Set<Int> = []
        var tracked = false
        try await running.client.watch(intervalMilliseconds: 100, id: 42) { response in
            ids.insert(response.id)
            guard case .success(let status) = response.outcome, let depth = status["depth"]?.intValue else {
                Issue.record("not a status: \(response)")
                return false
            }
            depths.append(depth)
            if let count = status["commands"]?["applied"]?.intValue { applied.insert(count) }
            if !tracked {
                tracked = true
                do {
                    try await running.engine.tracker.track("Watched", anonymousId: "w").committed()
                } catch {
                    Issue.record("track failed: \(error)")
                    return false
                }
            }
            // Until the queued event shows, bounded: 300 snapshots are 30 s.
            return depth == 0 && depths.count < 300
        }
        #expect(depths.first == 0)
        #expect(depths.last == 1, "the event tracked after the first snapshot shows in a later one: \(depths)")
        #expect(ids == [42])
        #expect(applied == [1], "the watch is one command, not one per snapshot: \(applied)")
        try await running.stop()
    }

    @Test(
        "a bad interval is refused in one response and ends the watch",
        arguments: [
            #"{"intervalMs":5}"#, #"{"intervalMs":60001}"#, #"{"intervalMs":-1}"#, #"{"intervalMs":1e300}"#,
            #"{"intervalMs":9223372036854775807}"#, #"{"intervalMs":"fast"}"#, #"{"intervalMs":100,"extra":1}"#,
            #"250"#, #""all""#, #"[100]"#,
        ])
    func refusesBadIntervals(argument: String) async throws {
        let running = try await ControlChannelTests.Running.start()
        let line = #"{"v":1,"id":7,"command":"watch","argument":"# + argument + "}"
        let response = try await running.client.send(line: Array(line.utf8))
        #expect(response.id == 7)
        #expect(ControlChannelTests.refusal(response)?.contains("intervalMs") == true, "\(argument): \(response)")
        try await running.stop()
    }

    @Test("closing the server ends a watch: the client returns instead of waiting")
    func serverCloseEndsTheWatch() async throws {
        let running = try await ControlChannelTests.Running.start()
        var seen = 0
        try await running.client.watch(intervalMilliseconds: 100) { _ in
            seen += 1
            if seen == 2 { await running.control.close() }
            return seen < 1_000
        }
        #expect(seen >= 2 && seen < 1_000, "the stream ended with the server, after \(seen) snapshots")
        try await running.stop()
    }
}
