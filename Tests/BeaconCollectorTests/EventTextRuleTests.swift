import BeaconCollector
import BeaconTesting
import BeaconWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 22, finding 2: one rule for what the strings of an event may hold
/// (``EventTextRule``), the same for the SQLite and the PostgreSQL store. PostgreSQL
/// answered `500 storage_failed` to a NUL, so the engine retried one event for an hour
/// and a half; a lone surrogate was stored by one store and refused by the agent.
@Suite("One rule for the text of an event", .timeLimit(.minutes(2)))
struct EventTextRuleTests {
    /// Events that break the rule, each with its messageId.
    static let breaking: [(id: String, json: String)] = [
        ("nul-event", #"{"type":"track","event":"a\u0000b","messageId":"nul-event","userId":"u"}"#),
        ("nul-user", #"{"type":"track","event":"E","messageId":"nul-user","userId":"u\u0000"}"#),
        ("nul-anonymous", #"{"type":"identify","messageId":"nul-anonymous","anonymousId":"\u0000a"}"#),
        ("nul-value", #"{"type":"track","event":"E","messageId":"nul-value","userId":"u","properties":{"k":"v\u0000"}}"#),
        ("nul-key", #"{"type":"track","event":"E","messageId":"nul-key","userId":"u","properties":{"a":{"k\u0000":1}}}"#),
        ("nul-context", #"{"type":"track","event":"E","messageId":"nul-context","userId":"u","context":{"ip":["\u0000"]}}"#),
        ("lone-high", #"{"type":"track","event":"E","messageId":"lone-high","userId":"u","properties":{"k":"\ud800"}}"#),
        ("lone-low", #"{"type":"track","event":"E","messageId":"lone-low","userId":"u","properties":{"k":"x\udc00"}}"#),
        ("high-then-other", #"{"type":"track","event":"E","messageId":"high-then-other","userId":"u","properties":{"k":"\ud800\u0041"}}"#),
        ("two-highs", #"{"type":"track","event":"E","messageId":"two-highs","userId":"u","properties":{"k":"\uD83D\uD83D"}}"#),
    ]

    /// Events the rule keeps: whole characters, other control characters.
    static let keeping: [(id: String, json: String)] = [
        ("pair", #"{"type":"track","event":"E","messageId":"pair","userId":"u","properties":{"k":"\ud83d\ude00 and \uD83D\uDE00"}}"#),
        ("control", #"{"type":"track","event":"E","messageId":"control","userId":"u","properties":{"k":"\u0001\u001f\t"}}"#),
        ("escaped", #"{"type":"track","event":"Caf\u00e9","messageId":"escaped","userId":"u","properties":{"k\u00e9":"\u2603"}}"#),
        ("raw", #"{"type":"track","event":"E","messageId":"raw","userId":"u","properties":{"k":"😀 ☃"}}"#),
    ]

    @Test("the rule on JSON escapes")
    func escapes() {
        #expect(EventTextRule.problem(escape: 0, next: nil) == .nul)
        #expect(EventTextRule.problem(escape: 0xD800, next: nil) == .loneSurrogate)
        #expect(EventTextRule.problem(escape: 0xD800, next: 0x0041) == .loneSurrogate)
        #expect(EventTextRule.problem(escape: 0xDBFF, next: 0xDFFF) == nil)
        #expect(EventTextRule.problem(escape: 0xDC00, next: nil) == .loneSurrogate)
        #expect(EventTextRule.problem(escape: 0x0001, next: nil) == nil)
        #expect(EventTextRule.problem(escape: 0xFFFF, next: nil) == nil)
        #expect(EventTextRule.problem(in: "a\u{0}b") == .nul)
        #expect(EventTextRule.problem(in: "a\u{1}b😀") == nil)
    }

    /// Each breaking event is refused alone, named, with the rule's code; nothing of its
    /// batch is stored; the others go in once it is dropped; the kept ones are stored.
    static func check(_ collector: Collector, port: Int) async throws {
        let good = #"{"type":"track","event":"E","messageId":"good","userId":"u"}"#
        for (id, json) in breaking {
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/batch", body: batchBody([good, json]))
            }
            #expect(answer.status == 400, "\(id): \(answer.text)")
            let rejected = answer.rejected
            #expect(rejected.count == 1, "\(id): \(answer.text)")
            #expect(rejected.first?["code"] as? String == EventTextRule.rejectionCode, "\(id): \(answer.text)")
            #expect(rejected.first?["messageId"] as? String == id, "\(id): \(answer.text)")
            #expect(rejected.first?["index"] as? Int == 1, "\(id)")
        }
        #expect(try await collector.storedMessageIds().isEmpty, "nothing of a refused batch is stored")
        let kept = try await withClient(port: port) { client in
            try await call(client, .post, "/v1/batch", body: batchBody([good] + keeping.map(\.json)))
        }
        #expect(kept.status == 200, "\(kept.text)")
        #expect(Set(try await collector.storedMessageIds()) == Set(["good"] + keeping.map(\.id)))
        // The single-event routes follow the same rule.
        let single = try await withClient(port: port) { client in
            try await call(client, .post, "/v1/track", body: bytes(breaking[3].json))
        }
        #expect(single.status == 400 && single.rejected.first?["code"] as? String == EventTextRule.rejectionCode, "\(single.text)")
    }

    @Test("the SQLite store: breaking events refused alone, the others stored")
    func sqliteStore() async throws {
        try await withCollector { collector, port in try await Self.check(collector, port: port) }
    }

    @Test(
        "the PostgreSQL store: the same answers, no 500",
        .enabled(if: PostgresTestDatabase.mustRun, "BEACON_TEST_POSTGRES is not set (.ci/run sets up a local PostgreSQL)"))
    func postgresStore() async throws {
        try await PostgresTestDatabase.withSchema { store in
            var configuration = CollectorConfiguration(port: 0)
            configuration.postgres = store
            try await withCollector(configuration) { collector, port in try await Self.check(collector, port: port) }
        }
    }
}
