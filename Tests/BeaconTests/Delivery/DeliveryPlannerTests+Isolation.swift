import BeaconWire
import Beacon
import Testing

/// The search for an event the destination cannot take, started by server errors long
/// before the retries run out (``RetryPolicy/isolateAfter``).
extension DeliveryPlannerTests {
    func decide(_ status: Int, count: Int, streak: FailureStreak, policy: RetryPolicy = RetryPolicy()) -> DeliveryDecision {
        DeliveryPlanner.decide(
            SendResult(.retryable(reason: "HTTP \(status)", retryAfter: nil), status: status), batch: batch(count),
            failures: streak.attempts, retryPolicy: policy, random: 0, streak: streak)
    }

    @Test func theFifthServerErrorStartsTheSearch() {
        #expect(RetryPolicy().isolateAfter == 5)
        guard case .retry = decide(500, count: 4, streak: FailureStreak(attempts: 3, age: .seconds(3))) else {
            Issue.record("the 4th failure waits")
            return
        }
        #expect(decide(500, count: 4, streak: FailureStreak(attempts: 4, age: .milliseconds(3500)))
            == .isolate(limit: 2, reason: "looking for the event that fails: 5 failed attempts over 3.5s: HTTP 500"))
        // Whatever the status while the search is on (the destination may have gone down meanwhile).
        #expect(decide(502, count: 3, streak: FailureStreak(attempts: 9, age: .seconds(4), isIsolating: true))
            == .isolate(limit: 2, reason: "looking for the event that fails: 10 failed attempts over 4.0s: HTTP 502"))
    }

    @Test func aDestinationThatFailsAtRandomNeverStartsIt() {
        guard case .retry = decide(500, count: 4, streak: FailureStreak(attempts: 50, age: .seconds(60), failsAtRandom: true)) else {
            Issue.record("a destination that fails at random backs off")
            return
        }
        // A search under way goes on (started before the destination was seen to fail at random).
        #expect(decide(500, count: 4, streak: FailureStreak(attempts: 9, age: .seconds(4), isIsolating: true, failsAtRandom: true))
            == .isolate(limit: 2, reason: "looking for the event that fails: 10 failed attempts over 4.0s: HTTP 500"))
    }

    @Test("503, 429, no answer and Retry-After never start it", arguments: [503, 429, 408, 400])
    func otherFailuresWait(_ status: Int) {
        guard case .retry = decide(status, count: 4, streak: FailureStreak(attempts: 50, age: .seconds(60))) else {
            Issue.record("HTTP \(status) retries")
            return
        }
        let noAnswer = DeliveryPlanner.decide(
            SendResult(.retryable(reason: "connection refused", retryAfter: nil)), batch: batch(4), failures: 50,
            retryPolicy: RetryPolicy(), random: 0, streak: FailureStreak(attempts: 50, age: .seconds(60)))
        guard case .retry = noAnswer else {
            Issue.record("no answer retries")
            return
        }
        let asked = DeliveryPlanner.decide(
            SendResult(.retryable(reason: "HTTP 500", retryAfter: .seconds(3)), status: 500), batch: batch(4), failures: 50,
            retryPolicy: RetryPolicy(), random: 0, streak: FailureStreak(attempts: 50, age: .seconds(60)))
        guard case .retry = asked else {
            Issue.record("a server that asks for time gets it")
            return
        }
    }

    @Test func oneEventAloneIsDeadLetteredOnlyAfterFailingAloneTenTimesBetweenDeliveries() {
        let one = batch(1).events[0]
        #expect(RetryPolicy().isolatedEventFailures == 10)
        // No delivery yet: not evidence; the events after it are tried.
        #expect(decide(500, count: 1, streak: FailureStreak(attempts: 9, age: .seconds(8), isIsolating: true))
            == .probePast(reason: "failed alone (0 of 10 times after a delivery); trying the events after it: HTTP 500"))
        // Nine counted, and a delivery since the last: the tenth is evidence enough.
        #expect(decide(500, count: 1, streak: FailureStreak(attempts: 30, age: .seconds(9), isIsolating: true, soloFailures: 8, deliveredSinceSoloFailure: true))
            == .probePast(reason: "failed alone (9 of 10 times after a delivery); trying the events after it: HTTP 500"))
        #expect(decide(500, count: 1, streak: FailureStreak(attempts: 31, age: .seconds(9), isIsolating: true, soloFailures: 9, deliveredSinceSoloFailure: true))
            == .deadLetter([RejectedEvent(event: one, reason: "failed alone 10 times over 9.0s while the events around it were delivered: HTTP 500")]))
        // Nine counted but no delivery since: not yet.
        guard case .probePast = decide(500, count: 1, streak: FailureStreak(attempts: 31, age: .seconds(9), isIsolating: true, soloFailures: 9)) else {
            Issue.record("a failure with no delivery before it is no evidence")
            return
        }
        // The probe past it failed too: the destination is failing; back off, nothing dead-lettered.
        guard case .retry(let delay, "HTTP 500", nil) = decide(500, count: 1, streak: FailureStreak(attempts: 10, age: .seconds(8), isIsolating: true, isProbing: true)) else {
            Issue.record("a failed probe backs off")
            return
        }
        #expect(delay > .zero)
    }

    @Test func turnedOffItWaitsForTheGiveUp() {
        var policy = RetryPolicy()
        policy.isolateAfter = nil
        guard case .retry = decide(500, count: 4, streak: FailureStreak(attempts: 50, age: .seconds(600)), policy: policy) else {
            Issue.record("no search")
            return
        }
        #expect(!policy.isolates(afterAttempts: .max, status: 500))
        policy.isolateAfter = 0  // below 1 counts as 1
        #expect(policy.isolates(afterAttempts: 1, status: 599))
        #expect(!policy.isolates(afterAttempts: 1, status: 600))
        #expect(!policy.isolates(afterAttempts: 1, status: nil))
    }
}
