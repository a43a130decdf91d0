import BeaconCollector
import BeaconTesting
import BeaconWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Bodies in the shapes Segment's and RudderStack's libraries send are accepted and stored.
@Suite("Collector compatibility")
struct CollectorCompatibilityTests {
    static func sample(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Assets/collector-sample-requests/\(name)")
        return Array(try Data(contentsOf: url))
    }

    @Test("A Segment batch of every call type, plain, with Basic auth")
    func segmentBatchWithHeaderAuth() async throws {
        let body = try Self.sample("segment-batch.json")
        try await withCollector(CollectorConfiguration(writeKeys: ["abc123"])) { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/batch", body: body, headers: [.authorization: basicAuthorization("abc123")])
            }
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["stored"] as? Int == 6)
            let stored = try await collector.storedEvents()
            #expect(stored.map(\.type) == ["identify", "track", "page", "screen", "group", "alias"])
            #expect(stored[1].name == "Song Played")
            #expect(stored[2].name == "Home")
            #expect(stored[2].timestamp == nil)
            #expect(stored[3].timestamp == "2026-02-03T11:30:07.000+01:00")
            #expect(stored[1].json.contains(#""integrations": { "All": true, "Mixpanel": false }"#))
        }
    }

    @Test("The same batch gzipped, to the /v1/b alias, with the write key in the body")
    func gzipBatchWithBodyKeyOnAlias() async throws {
        let body = batchBody(
            [trackJSON(messageId: "g-1"), trackJSON(messageId: "g-2", userId: nil, extra: #","anonymousId":"anon-7""#)],
            extra: #","writeKey":"abc123","sentAt":"2026-02-03T11:30:10.000Z""#)
        try await withCollector(CollectorConfiguration(writeKeys: ["abc123"])) { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/b", body: gzip(body), headers: [.contentEncoding: "gzip"])
            }
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try await collector.storedMessageIds() == ["g-1", "g-2"])
        }
    }

    @Test("A single /v1/track call as Segment's HTTP API docs show it, without a timestamp")
    func singleTrack() async throws {
        let body = try Self.sample("segment-track.json")
        try await withCollector(CollectorConfiguration(writeKeys: ["abc123"])) { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/track", body: body)
            }
            #expect(answer.status == 200, "\(answer.text)")
            let stored = try await collector.storedEvents()
            #expect(stored.count == 1)
            #expect(stored.first?.type == "track")
            #expect(stored.first?.name == "Item Purchased")
            #expect(stored.first?.json == String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test("A RudderStack Node SDK batch, gzipped, with Basic auth")
    func rudderStackBatch() async throws {
        let body = try Self.sample("rudderstack-batch.json")
        try await withCollector(CollectorConfiguration(writeKeys: ["rudder-key"])) { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(
                    client, .post, "/v1/batch", body: gzip(body),
                    headers: [.authorization: basicAuthorization("rudder-key"), .contentEncoding: "gzip"])
            }
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try await collector.storedCount() == 1)
        }
    }

    @Test("The body BeaconWire.Batch(...).jsonBytes produces is stored byte for byte")
    func beaconWireBatch() async throws {
        let events = (0..<20).map { index in
            Event(
                name: "Screen Viewed", properties: ["index": .int(index), "ok": true, "name": "é ✓ \"q\""],
                userId: "user-\(index)", context: ["app": ["version": "1.0"]])
        }
        let batch = Batch(batch: events, writeKey: "wire-key")
        try await withCollector(CollectorConfiguration(writeKeys: ["wire-key"])) { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/batch", body: batch.jsonBytes)
            }
            #expect(answer.status == 200, "\(answer.text)")
            let stored = try await collector.storedEvents()
            #expect(stored.map(\.messageId) == events.map(\.messageId))
            #expect(stored.map(\.json) == events.map { String(decoding: $0.jsonBytes, as: UTF8.self) })
            #expect(stored.first?.timestamp == events.first?.timestamp?.iso8601)
        }
    }

    @Test("Without configured keys, any key or none is accepted; Bearer tokens pass through")
    func openCollectorAcceptsAnyKey() async throws {
        try await withCollector { collector, port in
            try await withClient(port: port) { client in
                let none = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "o-1")]))
                let some = try await call(
                    client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "o-2")]),
                    headers: [.authorization: basicAuthorization("whatever")])
                let bearer = try await call(
                    client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "o-3")]),
                    headers: [.authorization: "Bearer token-xyz"])
                let statuses: [Int] = [none.status, some.status, bearer.status]
                #expect(statuses == [200, 200, 200])
            }
            #expect(try await collector.storedCount() == 3)
        }
    }
}
