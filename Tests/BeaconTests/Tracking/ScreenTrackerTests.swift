@testable import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

/// Screen tracking on a manual clock, read back from an in-memory queue.
@Suite("Screen tracker", .timeLimit(.minutes(1)))
struct ScreenTrackerTests {
    let queue = InMemoryEventQueue()
    let clock = ManualClock()
    var tracker: Tracker { Tracker(queue: queue) }

    /// The queued events as (name, properties), in order.
    func sent() async throws -> [(String, [String: JSONValue])] {
        await queue.waitForPendingWrites()
        return try await queue.peek(limit: 100, maxBytes: .max).map { queued in
            let event = try JSONDecoder().decode(Event.self, from: Data(queued.payload))
            return (event.name ?? "", event.properties)
        }
    }

    @Test func enterBackgroundForegroundExit() async throws {
        let screens = ScreenTracker(tracker: tracker, clock: clock)
        try screens.enter("Home")
        clock.advance(by: .milliseconds(1500))
        try screens.handle(.didEnterBackground)
        clock.advance(by: .seconds(60))
        try screens.handle(.willEnterForeground)
        clock.advance(by: .milliseconds(250))
        try screens.exit()
        let events = try await sent()
        #expect(events.map(\.0) == ["Screen Viewed", "Application Backgrounded", "Application Foregrounded", "Screen Exited"])
        #expect(events[0].1 == ["name": "Home"])
        #expect(events[1].1 == ["screen": "Home"])
        #expect(events[2].1 == ["screen": "Home", "background_ms": 60_000])
        #expect(events[3].1 == ["name": "Home", "duration_ms": 1750])
        #expect(screens.currentScreen == nil)
    }

    @Test func enteringReplacesTheCurrentScreen() async throws {
        let screens = ScreenTracker(tracker: tracker, clock: clock)
        try screens.enter("Cart")
        clock.advance(by: .seconds(3))
        try screens.enter("Checkout")
        clock.advance(by: .milliseconds(10))
        try screens.handle(.willTerminate)
        let events = try await sent()
        #expect(events.map(\.0) == ["Screen Viewed", "Screen Exited", "Screen Viewed", "Screen Exited"])
        #expect(events[1].1 == ["name": "Cart", "duration_ms": 3000])
        #expect(events[2].1 == ["name": "Checkout", "previous_screen": "Cart"])
        #expect(events[3].1 == ["name": "Checkout", "duration_ms": 10])
    }

    @Test func screenEnteredInBackgroundCountsFromForeground() async throws {
        let screens = ScreenTracker(tracker: tracker, clock: clock)
        try screens.handle(.didEnterBackground)
        try screens.handle(.didEnterBackground)  // repeated: ignored
        try screens.enter("Push Landing")
        clock.advance(by: .seconds(5))
        try screens.handle(.willEnterForeground)
        clock.advance(by: .seconds(2))
        try screens.exit()
        try screens.exit()  // nothing shown: nothing sent
        let events = try await sent()
        #expect(events.map(\.0) == ["Application Backgrounded", "Screen Viewed", "Application Foregrounded", "Screen Exited"])
        #expect(events[0].1 == [:])
        #expect(events[3].1 == ["name": "Push Landing", "duration_ms": 2000])
    }

    @Test func invalidScreenNameIsRefused() async throws {
        let screens = ScreenTracker(tracker: tracker, clock: clock)
        #expect(throws: TrackingError.self) { try screens.enter(String(repeating: "x", count: 100_000)) }
    }
}
