import Beacon
import BeaconWire
import Testing

/// The engine's status declared once: what the engine writes is what `ctl` and the
/// monitor read back, each destination's state as an explicit value.
@Suite("Engine status report")
struct EngineStatusReportTests {
    static let next = Timestamp(millisecondsSince1970: 1_795_000_000_123)

    static func report(_ states: [DestinationStatus.State]) -> EngineStatusReport {
        EngineStatusReport(
            policy: "count 10 or every 200ms", batchSize: 100, offline: false, depth: 42, deadLetters: 3, deadLettersRetried: 1,
            deadLettersPurged: 2, store: "/tmp/s.sqlite",
            queue: .init(events: 42, bytes: 4_200, maxEvents: 100, maxBytes: 1 << 20, full: false),
            destinations: states.enumerated().map { index, state in
                EngineStatusReport.Destination(
                    name: "d\(index)", endpoint: "http://127.0.0.1:\(8_000 + index)", state: state, pending: index,
                    oldestPendingAge: index == 0 ? nil : 1.5, lastSuccessAt: nil, stalled: index == 2, consecutiveFailures: index,
                    lastError: index == 0 ? nil : "HTTP 503", deliveryRate: index == 0 ? nil : 12.5)
            })
    }

    @Test("every state survives the trip through the control channel's JSON")
    func roundTrip() throws {
        let states: [DestinationStatus.State] = [
            .starting, .idle, .sending, .backingOff(until: Self.next), .pausedByOperator, .paused(reason: "HTTP 401: credentials refused"), .offline,
        ]
        let report = Self.report(states)
        let back = try #require(EngineStatusReport(json: report.json))
        #expect(back == report)
        #expect(back.destinations.map(\.destinationState) == states)
        #expect(back.destinations.map(\.code) == EngineStatusReport.Destination.Code.allCases)
        #expect(back.destinations[3].nextRetryAt == Self.next.iso8601)
        #expect(back.destinations[0].nextRetryAt == nil && back.destinations[0].lastError == nil, "unknown is absent, not a default")
    }

    @Test("a destination's events since the engine started: the counters' difference, from zero again after a reset, never negative or trapping",
          arguments: [
              (now: DestinationDepth(delivered: 150, deadLettered: 3, dropped: 7), start: DestinationDepth(delivered: 100, deadLettered: 1, dropped: 7),
               expected: [50, 2, 0]),
              // The destination's progress was reset (unregistered, registered again): from zero.
              (now: DestinationDepth(delivered: 20), start: DestinationDepth(delivered: 100), expected: [20, 0, 0]),
              // Counters read back from a damaged store: no overflow, no negative count.
              (now: DestinationDepth(delivered: Int.max, deadLettered: -5), start: DestinationDepth(delivered: -1, deadLettered: Int.min),
               expected: [Int.max, 0, 0]),
              (now: DestinationDepth(delivered: Int.min), start: DestinationDepth(delivered: Int.max), expected: [0, 0, 0]),
          ])
    func sinceStart(now: DestinationDepth, start: DestinationDepth, expected: [Int]) throws {
        let counts = EngineStatusReport.Destination.Counts(now, from: start)
        #expect([counts.delivered, counts.deadLettered, counts.dropped] == expected)
        var report = Self.report([.idle])
        report.destinations[0].sinceStart = counts
        let back = try #require(EngineStatusReport(json: report.json))
        #expect(back.destinations[0].sinceStart == counts, "it survives the control channel's JSON")
    }

    @Test("the JSON keeps the names scripts read")
    func jsonNames() {
        let json = Self.report([.backingOff(until: Self.next)]).json
        let destination = json["destinations"]?.arrayValue?.first
        #expect(destination?["state"] == "backing off")
        #expect(destination?["code"] == "backing_off")
        #expect(destination?["nextRetryAt"] == .string(Self.next.iso8601))
        #expect(json["queue"]?["maxEvents"] == 100)
        #expect(json["depth"] == 42)
        #expect(destination?["lastSuccessAt"] == .null && destination?["lastError"] == .null, "unknown is null: every key is there")
    }

    @Test("a status that is not a report is refused, not guessed", arguments: [
        JSONValue.null, ["policy": 1], ["policy": "manual", "batchSize": "ten"], .array([]),
    ])
    func notAReport(json: JSONValue) {
        #expect(EngineStatusReport(json: json) == nil)
    }

    @Test("time to drain as the observer estimates it, and since when a destination is stalled")
    func drainAndStall() throws {
        let at = Timestamp(millisecondsSince1970: 1_000_000_000)
        var sending = DestinationStatus(name: "main", endpoint: "e", depth: 22_500, state: .sending)
        sending.deliveryRate = 600
        sending.inflowRate = 100
        let destination = EngineStatusReport.Destination(
            name: "main", endpoint: nil, state: .sending, pending: 22_500, oldestPendingAge: 90, lastSuccessAt: nil, stalled: true,
            consecutiveFailures: 0, lastError: nil, deliveryRate: 600, stalledSince: at, drain: sending.drain,
            failingSince: at, failureRate: 0.3)
        #expect(destination.drainSeconds == 45, "22,500 at a net 500/s")
        #expect(destination.draining == true)
        #expect(destination.stalledSince == at.iso8601)
        #expect(destination.failingSince == at.iso8601)
        #expect(destination.failureRate == 0.3)
        // The report takes the observer's estimate and makes none of its own.
        for (drain, draining) in [(DestinationStatus.Drain.unknown, nil), (.notDraining, false)] as [(DestinationStatus.Drain, Bool?)] {
            let still = EngineStatusReport.Destination(
                name: "x", endpoint: nil, state: .sending, pending: 10, oldestPendingAge: nil, lastSuccessAt: nil, stalled: false,
                consecutiveFailures: 0, lastError: nil, deliveryRate: 500, drain: drain)
            #expect(still.drainSeconds == nil && still.draining == draining, "\(drain)")
        }
        for rate in [-1, .nan, .infinity, 7] as [Double] {
            let odd = EngineStatusReport.Destination(
                name: "x", endpoint: nil, state: .sending, pending: 10, oldestPendingAge: nil, lastSuccessAt: nil, stalled: false,
                consecutiveFailures: 0, lastError: nil, deliveryRate: 1, failureRate: rate)
            #expect(odd.failureRate.map { $0 >= 0 && $0 <= 1 } ?? true, "a share out of range is clamped or dropped: \(rate)")
        }
        // An engine from before these fields: its report still reads, with them unknown.
        guard case .object(var members) = Self.report([.idle]).json,
              case .array(var destinations)? = members["destinations"], case .object(var first) = destinations[0] else {
            Issue.record("not an object")
            return
        }
        first["drainSeconds"] = nil
        first["stalledSince"] = nil
        destinations[0] = .object(first)
        members["destinations"] = .array(destinations)
        let older = try #require(EngineStatusReport(json: .object(members)))
        #expect(older.destinations[0].drainSeconds == nil && older.destinations[0].stalledSince == nil)

        var status = DestinationStatus(
            name: "main", endpoint: "e", depth: 5, state: .backingOff(until: at), oldestPendingAt: Timestamp(millisecondsSince1970: 1_000),
            lastSuccessAt: Timestamp(millisecondsSince1970: 20_000), stalled: false)
        #expect(status.stalledSince(at: Timestamp(millisecondsSince1970: 79_000)) == nil, "59 s after the last delivery: not yet")
        #expect(status.stalledSince(at: Timestamp(millisecondsSince1970: 200_000)) == Timestamp(millisecondsSince1970: 80_000))
        status.state = .pausedByOperator
        #expect(status.stalledSince(at: Timestamp(millisecondsSince1970: 200_000)) == nil, "a pause asked for is no stall")
    }
}
