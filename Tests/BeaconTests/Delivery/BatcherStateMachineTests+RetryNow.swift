import BeaconTesting
import Testing

@testable import Beacon

/// The operator's retry now (`endBackoff`): every state, by hand.
extension BatcherStateMachineTests {
    /// Only a backoff ends, kept under offline or a hold or not; pauses and offline stay.
    @Test func endBackoffEndsOnlyABackoff() {
        check([
            (Self.idle, Self.idle, .none), (Self.idleAfter7, Self.idleAfter7, .none), (Self.head, Self.head, .none),
            (Self.after7, Self.after7, .none), (Self.ahead, Self.ahead, .none), (Self.readingAfter7, Self.readingAfter7, .none),
            (Self.readingHead, Self.readingHead, .none), (Self.batch20, Self.batch20, .none),
            (Self.backingOff, Self.head, .reportDestination),
            (Self.paused, Self.paused, .none), (Self.offline, Self.offline, .none), (Self.offlinePaused, Self.offlinePaused, .none),
            (Self.held, Self.held, .none), (Self.heldPaused, Self.heldPaused, .none), (Self.offlineHeld, Self.offlineHeld, .none),
        ]) { $0.endBackoff() }
    }

    /// A backoff that offline or a hold keeps is dropped: they end into a drain.
    @Test func endBackoffDropsAKeptBackoff() {
        let rows: [(State, State)] = [
            (.offline(then: .backingOff(until: Self.at(20))), .offline(then: nil)),
            (.held(then: .backingOff(until: Self.at(20))), .held(then: nil)),
            (.offline(then: .held(then: .backingOff(until: Self.at(20)))), .offline(then: .held(then: nil))),
        ]
        for (state, expected) in rows {
            var machine = Self.machine(state)
            #expect(machine.endBackoff() == .reportDestination, "\(state)")
            #expect(machine.state == expected, "\(state)")
        }
    }

    /// After a retry now the wake drains from the head at once: no timer for the old backoff.
    @Test func aWakeAfterRetryNowDrains() {
        var machine = Self.machine(Self.backingOff, failures: 3)
        _ = machine.endBackoff()
        #expect(machine.wake(now: Self.now, settings: Self.online, wentOffline: false) == .drain(reporting: nil))
        #expect(machine.failures == 3, "the failures in a row still count: the next failure backs off longer")
    }
}
