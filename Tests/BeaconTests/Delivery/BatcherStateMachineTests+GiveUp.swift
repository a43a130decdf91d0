import BeaconTesting
import Testing

@testable import Beacon

/// The failure streak behind ``RetryPolicy/maxAttempts`` and ``RetryPolicy/maxAge``: what
/// each send decision does to it, and how isolation ends.
extension BatcherStateMachineTests {
    typealias Streak = Machine.Streak

    /// From a batch through 20: the decision, and the streak it leaves.
    @Test func eachSendDecisionAndTheStreak() {
        let event = QueuedEvent(sequence: 18, messageId: "m18", name: "e", payload: Array("{}".utf8))
        let before = Streak(attempts: 2, since: Self.at(4))
        let cases: [(DeliveryDecision, Streak?, after: Streak?)] = [
            (.retry(after: .seconds(3), reason: "HTTP 500"), nil, Streak(attempts: 1, since: Self.now)),
            (.retry(after: .seconds(3), reason: "HTTP 500"), before, Streak(attempts: 3, since: Self.at(4))),
            (.isolate(limit: 2, reason: "gave up"), nil, Streak(attempts: 1, since: Self.now, isolatingThrough: 20)),
            (.isolate(limit: 2, reason: "gave up"), before, Streak(attempts: 3, since: Self.at(4), isolatingThrough: 20)),
            (
                .isolate(limit: 1, reason: "gave up"), Streak(attempts: 3, since: Self.at(4), isolatingThrough: 25),
                Streak(attempts: 4, since: Self.at(4), isolatingThrough: 25)
            ),
            (.delivered, before, nil),
            (.delivered, Streak(attempts: 3, since: Self.at(4), isolatingThrough: 20), nil),  // past the isolated batch
            // Before the isolated batch's end: the search goes on, knowing the destination takes events.
            (.delivered, Streak(attempts: 3, since: Self.at(4), isolatingThrough: 25, gaveUp: true),
             Streak(attempts: 3, since: Self.at(4), isolatingThrough: 25, deliveredSinceSoloFailure: true, gaveUp: true)),
            // A search started early: the failures in a row start again.
            (.delivered, Streak(attempts: 3, since: Self.at(4), isolatingThrough: 25),
             Streak(attempts: 0, since: Self.now, isolatingThrough: 25, deliveredSinceSoloFailure: true)),
            (.deadLetter([RejectedEvent(event: event, reason: "gave up")]), Streak(attempts: 3, since: Self.at(4), isolatingThrough: 25), nil),
            (.split(limit: 2), before, before),
            (.pause(reason: "HTTP 401"), before, before),
        ]
        for (decision, streak, expected) in cases {
            var machine = Machine(
                state: Self.batch20, scheduler: FlushScheduler(policy: .manual, now: Self.at(0)), retryPolicy: RetryPolicy(), failures: 2,
                splitLimit: 4, streak: streak)
            _ = machine.sendFinished(decision, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
            #expect(machine.streak == expected, "\(decision) after \(String(describing: streak))")
        }
    }

    @Test func theStreakAsThePlannerTakesIt() {
        var machine = Self.machine(Self.batch20)
        #expect(machine.failureStreak(now: Self.now) == FailureStreak())
        _ = machine.sendFinished(.retry(after: .seconds(1), reason: "HTTP 500"), sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.failureStreak(now: Self.at(15)) == FailureStreak(attempts: 1, age: .seconds(5)))
    }

    /// Retries ran out for a batch through 20: no backoff, halves from the head; a delivery
    /// short of 20 keeps isolating (no growth of the limit, the streak kept); the one past
    /// it ends the isolation.
    @Test func isolationGoesOnAtOnceUntilADeliveryPassesTheIsolatedBatch() {
        var machine = Self.machine(Self.batch20, failures: 99, streak: Streak(attempts: 99, since: Self.at(0)))
        #expect(machine.sendFinished(.isolate(limit: 2, reason: "gave up"), sent: 4, readAhead: nil, now: Self.now, batchSize: 10)
            == .settleThenReport(keepingLeases: false))
        #expect(machine.state == .draining(.head))
        #expect(machine.settleScheduled() == .reportDestination, "no timer: the halves go at once")
        #expect(machine.failureStreak(now: Self.now) == FailureStreak(attempts: 100, age: .seconds(10), isIsolating: true))

        #expect(machine.nextBatch(batchSize: 10) == .read(.head, limit: 2, attempt: 101))
        machine.batchRead(through: 18)
        _ = machine.sendFinished(.delivered, sent: 2, readAhead: .init(batch: "next", through: 20), now: Self.now, batchSize: 10)
        #expect(machine.state == .draining(.readAhead("next", through: 20)))
        #expect(machine.splitLimit == 2)
        #expect(machine.failures == 100)
        #expect(machine.failureStreak(now: Self.now).isIsolating)

        #expect(machine.nextBatch(batchSize: 10) == .send("next", limit: 2))
        _ = machine.sendFinished(.delivered, sent: 2, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.streak == nil)
        #expect(machine.failures == 0)
        #expect(machine.lastError == nil)
        #expect(machine.splitLimit == 4)
    }

    @Test func aReadThatFindsNothingEndsTheStreak() {
        var machine = Self.machine(Self.readingHead, streak: Streak(attempts: 3, since: Self.at(0), isolatingThrough: 20))
        #expect(machine.readFoundNothing(now: Self.now, random: 0) == .finishDrain)
        #expect(machine.streak == nil)
    }
}
