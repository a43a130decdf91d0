import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// pause, resume and the dead-letter commands over the control channel, with extreme and
/// malformed arguments.
@Suite("Control channel: pause, resume, dead letters", .timeLimit(.minutes(2)))
struct ControlOperationsTests {
    /// A running engine whose sender refuses every event whose name starts with "Bad"
    /// (400 naming it), after `bad` such events and `good` others are settled.
    static func withDeadLetters(bad: Int, good: Int) async throws -> ControlChannelTests.Running {
        let running = try await ControlChannelTests.Running.start()
        running.sender.setScript { batch, _ in
            let refused = batch.events.enumerated().filter { $0.element.name.hasPrefix("Bad") }.map {
                EventRejection(index: $0.offset, messageId: $0.element.messageId, code: "invalid_event", reason: "bad name \($0.element.name)")
            }
            return refused.isEmpty ? SendResult(.delivered, status: 200) : SendResult(.rejected(refused), status: 400)
        }
        for index in 0..<bad { try await running.engine.tracker.track("Bad \(index)", anonymousId: "x").committed() }
        for index in 0..<good { try await running.engine.tracker.track("Good \(index)", anonymousId: "x").committed() }
        await running.engine.flush()
        _ = await running.engine.observer.firstSnapshot { $0.depth == 0 && $0.deadLetters == bad }
        return running
    }

    /// The first destination of a `status` result.
    static func first(_ status: JSONValue) -> JSONValue? {
        guard case .array(let destinations)? = status["destinations"] else { return nil }
        return destinations.first
    }

    @Test func deadLettersRoundTrip() async throws {
        let running = try await Self.withDeadLetters(bad: 3, good: 2)
        let client = running.client
        let listed = try ControlChannelTests.applied(await client.send(.deadList(limit: 10)))
        #expect(listed["total"] == 3)
        guard case .array(let letters)? = listed["deadLetters"] else {
            Issue.record("no list: \(listed)")
            return
        }
        #expect(letters.count == 3)
        #expect(letters.allSatisfy { $0["status"] == 400 && $0["destination"] == "default" && $0["reason"]?.stringValue?.hasPrefix("bad name Bad") == true })
        #expect(letters.allSatisfy { $0["preview"]?.stringValue?.contains("\"type\"") == true })
        let ids = letters.compactMap { $0["id"]?.intValue }.map(Int64.init)
        #expect(Set(ids).count == 3)

        let shown = try ControlChannelTests.applied(await client.send(.deadShow(id: ids[0])))
        #expect(shown["event"]?["messageId"] == shown["messageId"])
        #expect(shown["event"]?["type"] == "track")

        let page = try ControlChannelTests.applied(await client.send(.deadExport(after: 0, limit: 2)))
        guard case .array(let exported)? = page["deadLetters"] else {
            Issue.record("no export: \(page)")
            return
        }
        #expect(exported.count == 2)
        #expect(page["next"] == exported.last?["id"])
        let rest = try ControlChannelTests.applied(await client.send(.deadExport(after: Int64(page["next"]?.intValue ?? 0), limit: 2)))
        #expect(rest["next"] == .null)

        // Retry one: the sender now accepts everything; it is sent again, once.
        running.sender.setScript { _, _ in SendResult(.delivered, status: 200) }
        let before = running.sender.batches.count
        let retried = try ControlChannelTests.applied(await client.send(.deadRetry(.ids([ids[0]]))))
        #expect(retried["count"] == 1)
        #expect(ControlChannelTests.refusal(try await client.send(.deadRetry(.ids([ids[0]]))))?.contains("no dead letter with id \(ids[0])") == true)
        _ = await running.engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.deadLettersRetried == 1 }
        let resent = running.sender.batches.dropFirst(before).flatMap(\.events)
        #expect(resent.map(\.messageId) == [shown["messageId"]?.stringValue ?? "?"])

        // Purge the rest; counted in status.
        let purged = try ControlChannelTests.applied(await client.send(.deadPurge(.all)))
        #expect(purged["count"] == 2)
        let status = try ControlChannelTests.applied(await client.send(.status))
        #expect(status["deadLetters"] == 0)
        #expect(status["deadLettersPurged"] == 2)
        #expect(status["deadLettersRetried"] == 1)
        try await running.stop()
    }

    @Test func pauseAndResumeOverTheChannel() async throws {
        let running = try await ControlChannelTests.Running.start()
        let client = running.client
        #expect(try ControlChannelTests.applied(await client.send(.pause(destination: "default"))) == ["paused": ["default"], "recorded": true])
        try await running.engine.tracker.track("E", anonymousId: "x").committed()
        #expect(try ControlChannelTests.applied(await client.send(.flush)) == ["flushing": true, "backingOff": []])
        _ = await running.engine.observer.firstSnapshot { $0.destinations.first?.state == .pausedByOperator }
        let status = try ControlChannelTests.applied(await client.send(.status))
        #expect(Self.first(status)?["pausedBy"] == "operator")
        #expect(Self.first(status)?["pending"] == 1)
        #expect(running.sender.batches.isEmpty)
        let refused = ControlChannelTests.refusal(try await client.send(.resume(destination: "backup")))
        #expect(refused?.contains("no destination named \"backup\"; this engine has: default") == true)
        #expect(try ControlChannelTests.applied(await client.send(.resume(destination: nil)))["resumed"] == ["default"])
        #expect(await running.engine.observer.firstSnapshot { $0.depth == 0 && $0.totals.delivered == 1 } != nil)
        #expect(running.sender.batches.count == 1)
        try await running.stop()
    }

    @Test("extreme and malformed arguments are refused with a reason, and change nothing")
    func extremeArguments() async throws {
        let running = try await Self.withDeadLetters(bad: 1, good: 0)
        let client = running.client
        let cases: [(String, String)] = [
            (#""dead-retry","argument":[9223372036854775807]"#, "ids are whole numbers"),
            (#""dead-retry","argument":[-1]"#, "ids are whole numbers"),
            (#""dead-retry","argument":[0]"#, "ids are whole numbers"),
            (#""dead-retry","argument":[1e300]"#, "ids are whole numbers"),
            (#""dead-purge","argument":[1.5]"#, "ids are whole numbers"),
            (#""dead-purge","argument":["1"]"#, "ids are whole numbers"),
            (#""dead-purge","argument":[]"#, "needs \"all\", an array"),
            (#""dead-purge","argument":"everything""#, "needs \"all\", an array"),
            (#""dead-purge""#, "needs \"all\", an array"),
            (#""dead-show","argument":"1\u0000""#, "needs a dead letter's id"),
            (#""dead-show","argument":4611686018427387905"#, "ids are whole numbers"),
            (#""dead-show","argument":4611686018427387904"#, "no dead letter with id 4611686018427387904"),
            (#""dead-list","argument":{"limit":0}"#, "\"limit\" must be"),
            (#""dead-list","argument":{"limit":1001}"#, "\"limit\" must be"),
            (#""dead-list","argument":{"limit":"NaN"}"#, "\"limit\" must be"),
            (#""dead-list","argument":{"limit":10,"sort":"x"}"#, "takes an object"),
            (#""dead-export","argument":{"after":-5}"#, "\"after\""),
            (#""pause","argument":"de\u0000fault""#, "control characters"),
            (#""pause","argument":"""#, "cannot be empty"),
            (#""pause","argument":42"#, "as a string"),
            (#""resume","argument":"nowhere""#, "no destination named \"nowhere\""),
        ]
        for (members, reason) in cases {
            let line = Array(#"{"v":1,"id":1,"command":"#.utf8) + Array(members.utf8) + Array("}".utf8)
            let refusal = ControlChannelTests.refusal(try await client.send(line: line))
            #expect(refusal?.contains(reason) == true, "\(members): \(String(describing: refusal))")
        }
        let huge = (0..<ControlProtocol.maxIDs + 1).map { _ in JSONValue.int(1) }
        var writer = JSONWriter()
        writer.write(["v": 1, "id": 2, "command": "dead-purge", "argument": .array(huge)] as [String: JSONValue])
        #expect(ControlChannelTests.refusal(try await client.send(line: writer.bytes))?.contains("at most 10000") == true)
        let missing = ControlChannelTests.refusal(try await client.send(.deadPurge(.ids([1, 999_999]))))
        #expect(missing?.contains("no dead letter with id 999999") == true)
        #expect(missing?.contains("nothing was purged") == true)
        let status = try ControlChannelTests.applied(await client.send(.status))
        #expect(status["deadLetters"] == 1, "nothing changed")
        #expect(Self.first(status)?["paused"] == false)
        try await running.stop()
    }
}
