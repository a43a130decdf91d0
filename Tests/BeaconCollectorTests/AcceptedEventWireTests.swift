import Beacon
import BeaconCollector
import BeaconWire
import BeaconTesting
import Foundation
import Synchronization
import Testing

/// `beacon agent` queues what its ingest accepted through ``WireEvent``'s checked path,
/// without reading the JSON again. That is only right if the checked path gives exactly
/// what the full reading gives for every event the collector accepts: the same type,
/// messageId, name, timestamp and bytes. Each event here goes through a real collector's
/// ingest over HTTP, and both ways are compared.
@Suite struct AcceptedEventWireTests {
    /// Events of every shape the ingest takes: each call type, with and without its own
    /// type, times as ISO text, as milliseconds and absent, escapes, numbers as ids.
    static let events: [(route: String, json: String)] = [
        ("/v1/batch", #"{"type":"track","event":"Signed Up","messageId":"m-1","userId":"u-1","timestamp":"2026-11-27T10:00:00.123Z"}"#),
        ("/v1/batch", #"{"type":"track","event":"Tab\tbed \u00e9 \ud83d\ude00","messageId":"m-2","anonymousId":"a","properties":{"x":[1,2.5,null,true]}}"#),
        ("/v1/batch", #"{"type":"page","name":"Home","messageId":"m-3","userId":42,"originalTimestamp":"2026-11-27T10:00:00Z"}"#),
        ("/v1/batch", #"{"type":"screen","name":"Cart","messageId":"m-4","userId":"u","timestamp":1764237600123}"#),
        ("/v1/batch", #"{"type":"identify","messageId":"m-5","userId":"u","traits":{"name":"A"},"name":"ignored"}"#),
        ("/v1/batch", #"{"type":"group","groupId":"g","messageId":"m-6","anonymousId":"a","timestamp":null,"originalTimestamp":"2026-01-01T00:00:00.000+02:00"}"#),
        ("/v1/batch", #"{"type":"alias","previousId":"p","messageId":"m-7","userId":"u","context":{"ip":"1.2.3.4"}}"#),
        ("/v1/batch", #"{"event":"No Type","messageId":"m-8","userId":"u"}"#),
        ("/v1/batch", #"{"type":null,"event":"Null Type","messageId":"m-9","userId":"u"}"#),
        ("/v1/identify", #"{"messageId":"m-10","userId":"u","traits":{}}"#),
        ("/v1/track", #"{"event":"Route Default","messageId":"m-11","anonymousId":"a","sentAt":"2026-11-27T10:00:00Z"}"#),
        ("/v1/batch", #"{ "type" : "track" , "event" : "Spaced" , "messageId" : "m-12" , "userId" : "u" }"#),
        ("/v1/batch", #"{"type":"track","event":"Escaped \"id\"","messageId":"m-\u0031\/3","userId":"u"}"#),
        ("/v1/batch", #"{"type":"track","event":"Both","messageId":"m-14","userId":"u","originalTimestamp":"2020-01-01T00:00:00Z","timestamp":"2026-11-27T10:00:00.5-03:30"}"#),
    ]

    @Test func theCheckedPathGivesWhatTheFullReadingGives() async throws {
        let store = RecordingStore()
        try await withCollector(store: store) { port in
            for (route, json) in Self.events {
                let body = route == "/v1/batch" ? "{\"batch\":[\(json)]}" : json
                let status = try await post(Array(body.utf8), to: route, port: port)
                #expect(status == 200, "\(route) \(json)")
            }
        }
        let accepted = store.events
        #expect(accepted.count == Self.events.count)
        // The agent reads the batch's essentials alone: the same fields as the whole events'.
        #expect(store.essentials == accepted.map(\.essentials))
        for event in accepted {
            let full = try WireEvent(json: event.json, defaultType: event.type)
            let checked = try WireEvent(
                checkedJSON: event.json, messageId: event.messageId, type: event.type, namesItsType: event.namesItsType,
                name: event.name, time: event.time)
            #expect(checked == full, "\(String(decoding: event.json, as: UTF8.self))")
            // The collector's checks read the time once, as the full reading reads it.
            #expect(event.time == full.timestamp, "\(String(decoding: event.json, as: UTF8.self))")
        }
        #expect(accepted.filter { !$0.namesItsType }.count == 4, "m-8, m-9, m-10 and m-11 name no type of their own")
    }

    @Test func onlyTheSizeIsCheckedAgainAndOddCasesTakeTheFullPath() throws {
        let json = Array(#"{"type":"track","event":"E","messageId":"m","userId":"u"}"#.utf8)
        #expect(throws: TrackingError.self) {
            try WireEvent(checkedJSON: json, messageId: "m", type: "track", namesItsType: true, name: "E", time: nil, maxEventBytes: 10)
        }
        // The time the checks read is kept as given, at either end of the range.
        for millis in [Int64(0), 253_402_300_799_999] {
            let time = Timestamp(millisecondsSince1970: millis)
            let event = try WireEvent(checkedJSON: json, messageId: "m", type: "track", namesItsType: true, name: "E", time: time)
            #expect(event.timestamp == time)
        }
        // An event without its own type gets it written into its JSON, as the full reading does.
        let untyped = Array(#"{"event":"E","messageId":"m","userId":"u"}"#.utf8)
        let written = try WireEvent(checkedJSON: untyped, messageId: "m", type: "track", namesItsType: false, name: "E", time: nil)
        #expect(String(decoding: written.json, as: UTF8.self).contains(#""type":"track""#))
        // So does an event whose type is not a Segment call.
        let odd = try WireEvent(checkedJSON: json, messageId: "m", type: "launch", namesItsType: true, name: "E", time: nil)
        #expect(odd == (try WireEvent(json: json, defaultType: "launch")))
    }
}

/// A collector store that keeps every accepted event.
private final class RecordingStore: StubCollectorStore, Sendable {
    private let recorded = Mutex<[AcceptedEvent]>([])
    private let recordedEssentials = Mutex<[AcceptedEvent.Essentials]>([])
    var events: [AcceptedEvent] { recorded.withLock { $0 } }
    /// ``AcceptedBatch/essentials`` of the same batches: what the agent queues.
    var essentials: [AcceptedEvent.Essentials] { recordedEssentials.withLock { $0 } }

    func insert(_ batch: AcceptedBatch) async throws -> StoreInsertResult {
        let events = batch.events
        let essentials = batch.essentials
        recorded.withLock { $0 += events }
        recordedEssentials.withLock { $0 += essentials }
        return StoreInsertResult(stored: events.count, duplicates: 0)
    }
}

private func withCollector(store: RecordingStore, _ body: @Sendable (Int) async throws -> Void) async throws {
    let collector = try Collector(configuration: CollectorConfiguration(), store: store)
    try await collector.withRunning { port in try await body(port) }
}

private func post(_ body: [UInt8], to path: String, port: Int) async throws -> Int {
    try await withClient(port: port) { client in
        try await call(client, .post, path, body: body).status
    }
}
