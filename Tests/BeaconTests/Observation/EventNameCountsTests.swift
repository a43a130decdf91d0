import BeaconTesting
import BeaconWire
import Testing

@testable import Beacon

/// Issue 42, build 6: what floods the queue, in a bounded space however many names arrive.
@Suite("Event name counts")
struct EventNameCountsTests {
    @Test("a million distinct names stay within the bound, and a name that floods is found with at least its count")
    func aMillionNamesStayBounded() {
        var counts = EventNameCounts(capacity: 64)
        var flood = 0
        var most = 0
        for index in 0..<1_000_000 {
            if index % 10 == 0 {
                counts.add("flood")
                flood += 1
            } else {
                counts.add("name-\(index)")
            }
            most = max(most, counts.keptNames)  // the bound, at every step
        }
        #expect(most == 64)
        #expect(counts.total == 1_000_000)
        let top = counts.top(10)
        #expect(top.first?.name == "flood", "\(top.prefix(3))")
        #expect((top.first?.count ?? 0) >= flood, "a kept name is never under its count")
        #expect((top.first?.count ?? 0) - (top.first?.overcount ?? 0) <= flood, "nor over by more than it inherited")
        #expect((top.first?.overcount ?? .max) <= counts.total / 64, "which is at most total ÷ capacity")
        #expect(counts.other(beyond: 10) == counts.total - top.reduce(0) { $0 + $1.count })
        #expect(counts.other(beyond: 10) > 700_000, "the distinct names are 'other'")
    }

    @Test func fewNamesAreCountedExactly() {
        var counts = EventNameCounts(capacity: 4)
        for (name, count) in [("a", 5), ("b", 3), ("c", 3), ("", 1)] { counts.add(name, count: count) }
        #expect(counts.top(10).map(\.name) == ["a", "b", "c", "(no name)"])
        #expect(counts.top(10).map(\.count) == [5, 3, 3, 1])
        #expect(counts.top(10).allSatisfy { $0.overcount == 0 })
        #expect(counts.other(beyond: 2) == 4)
        counts.add("d")  // past the capacity: it takes the least counted one's place
        #expect(counts.keptNames == 4)
        #expect(counts.top(10).last?.name == "d" && counts.top(10).last?.count == 2 && counts.top(10).last?.overcount == 1)
        counts.add("x", count: 0)
        counts.add("x", count: -5)
        #expect(counts.total == 13, "a count that is not positive counts nothing")
        counts.add("a", count: .max)
        #expect(counts.top(1).first?.count == .max && counts.total == .max, "counts saturate")
    }

    @Test("names are kept to 128 bytes, cut between characters", arguments: [
        String(repeating: "n", count: 10_000), String(repeating: "é", count: 200), String(repeating: "👩‍👩‍👧", count: 50),
        "nul\u{0}name", "\u{FEFF}bom",
    ])
    func longAndOddNames(_ name: String) {
        var counts = EventNameCounts()
        counts.add(name)
        counts.add(name)
        let kept = counts.top(1)[0]
        #expect(kept.count == 2, "the same name is one name")
        #expect(kept.name.utf8.count <= EventNameCounts.nameLimit)
        #expect(name.hasPrefix(kept.name.hasSuffix("…") ? String(kept.name.dropLast()) : kept.name))
    }

    @Test func theTrackerCountsWhatItAccepts() async throws {
        let queue = InMemoryEventQueue()
        let tracker = Tracker(queue: queue)
        for name in ["signup", "page_view", "page_view"] { try tracker.track(name) }
        #expect(throws: TrackingError.self) { try tracker.track(json: Array("not json".utf8)) }
        let wire = try WireEvent(json: Array(#"{"type":"track","event":"checkout","messageId":"m-1","anonymousId":"a"}"#.utf8))
        _ = try await tracker.enqueueSuspending(contentsOf: [wire])
        let counts = tracker.eventNames.current
        #expect(counts.top(5).map(\.name) == ["page_view", "checkout", "signup"])
        #expect(counts.total == 4, "a refused event is not counted")
    }

    @Test func theObserverListsTheBusiestWithTheirRates() async {
        let names = EventNameCounter()
        let observer = TrackingObserver(
            settings: EngineSettings(), depth: QueueDepth(), storePath: "store", endpoint: "test",
            sleep: { _ in try await Task.sleep(for: .seconds(3600)) }, eventNamesProvider: { names.current })
        names.add(Array(repeating: "page_view", count: 100) + ["signup"])
        await observer.tick()
        var snapshot = await observer.snapshot
        #expect(snapshot.eventNames.map(\.name) == ["page_view", "signup"])
        #expect(snapshot.eventNames.allSatisfy { $0.rate == nil }, "one sample: no rate yet")
        names.add(Array(repeating: "page_view", count: 50))
        await observer.tick()
        snapshot = await observer.snapshot
        #expect(snapshot.eventNames.first == EngineSnapshot.EventName(name: "page_view", count: 150, rate: 50))
        #expect(snapshot.eventNames.last?.rate == 0)
        names.add((0..<20).map { "name-\($0)" })
        await observer.tick()
        snapshot = await observer.snapshot
        #expect(snapshot.eventNames.count == EngineSnapshot.eventNameLimit)
        #expect(snapshot.otherEventNames == 171 - snapshot.eventNames.reduce(0) { $0 + $1.count })
    }
}
