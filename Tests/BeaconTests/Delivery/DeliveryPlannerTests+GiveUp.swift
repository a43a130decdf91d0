import BeaconWire
import Beacon
import Testing

/// When retries run out (``RetryPolicy/maxAttempts``, ``RetryPolicy/maxAge``): split to
/// isolate, dead-letter the event that fails alone, with the reason.
extension DeliveryPlannerTests {
    static let serverError = SendOutcome.retryable(reason: "HTTP 500 Internal Server Error", retryAfter: nil)

    func decide(
        _ outcome: SendOutcome, count: Int, streak: FailureStreak, policy: RetryPolicy = RetryPolicy()
    ) -> DeliveryDecision {
        DeliveryPlanner.decide(
            SendResult(outcome, status: 500), batch: batch(count), failures: streak.attempts, retryPolicy: policy, random: 0, streak: streak)
    }

    @Test func theDefaultsGiveUpAfter100AttemptsOr12Hours() {
        let policy = RetryPolicy()
        #expect(policy.maxAttempts == 100)
        #expect(policy.maxAge == .seconds(43_200))
        #expect(!policy.givesUp(afterAttempts: 99, failingFor: .seconds(43_199)))
        #expect(policy.givesUp(afterAttempts: 100, failingFor: .zero))
        #expect(policy.givesUp(afterAttempts: 1, failingFor: .seconds(43_200)))
    }

    @Test func theAttemptLimitIsExact() {
        var policy = RetryPolicy()
        policy.maxAttempts = 3
        // Two failures before: this one is the second, a retry; the third gives up.
        #expect(decide(Self.serverError, count: 4, streak: FailureStreak(attempts: 1, age: .seconds(1)), policy: policy)
            == .retry(after: .seconds(1), reason: "HTTP 500 Internal Server Error"))
        #expect(decide(Self.serverError, count: 4, streak: FailureStreak(attempts: 2, age: .milliseconds(1500)), policy: policy)
            == .isolate(limit: 2, reason: "gave up after 3 attempts over 1.5s: HTTP 500 Internal Server Error"))
        #expect(decide(Self.serverError, count: 5, streak: FailureStreak(attempts: 2, age: .zero), policy: policy)
            == .isolate(limit: 3, reason: "gave up after 3 attempts over 0ms: HTTP 500 Internal Server Error"))
        #expect(decide(Self.serverError, count: 1, streak: FailureStreak(attempts: 2, age: .seconds(125)), policy: policy)
            == .deadLetter([RejectedEvent(event: batch(1).events[0], reason: "gave up after 3 attempts over 2m05s: HTTP 500 Internal Server Error")]))
    }

    @Test func theAgeLimitGivesUpWhateverTheAttempts() {
        var policy = RetryPolicy()
        policy.isolateAfter = nil  // the give-up limits alone
        let young = FailureStreak(attempts: 5, age: .seconds(43_199))
        let old = FailureStreak(attempts: 5, age: .seconds(43_200))
        guard case .retry = decide(Self.serverError, count: 2, streak: young, policy: policy) else {
            Issue.record("expected a retry under 12 h")
            return
        }
        #expect(decide(Self.serverError, count: 2, streak: old, policy: policy)
            == .isolate(limit: 1, reason: "gave up after 6 attempts over 12h00m: HTTP 500 Internal Server Error"))
    }

    @Test func isolatingGivesUpAtOnce() {
        let streak = FailureStreak(attempts: 100, age: .seconds(60), isIsolating: true)
        #expect(decide(Self.serverError, count: 2, streak: streak)
            == .isolate(limit: 1, reason: "gave up after 101 attempts over 1m00s: HTTP 500 Internal Server Error"))
        // Other outcomes keep their meaning while isolating.
        #expect(decide(.delivered, count: 2, streak: streak) == .delivered)
        #expect(decide(.tooLarge, count: 2, streak: streak) == .split(limit: 1))
    }

    @Test func retryAfterIsWaitedOutEvenPastTheLimit() {
        let streak = FailureStreak(attempts: 100, age: .seconds(50_000), isIsolating: true)
        let outcome = SendOutcome.retryable(reason: "HTTP 429 Too Many Requests", retryAfter: .seconds(7))
        guard case .retry(let delay, "HTTP 429 Too Many Requests", let asked) = decide(outcome, count: 4, streak: streak) else {
            Issue.record("expected a retry: the server asked for time")
            return
        }
        #expect(delay >= .seconds(7))
        #expect(asked == .seconds(7), "the server's own ask is kept, for the final flush to keep to")
    }

    @Test func noLimitsNeverGiveUp() {
        var policy = RetryPolicy()
        policy.maxAttempts = nil
        policy.maxAge = nil
        policy.isolateAfter = nil
        let streak = FailureStreak(attempts: .max, age: .seconds(10 * 366 * 86_400))
        guard case .retry = decide(Self.serverError, count: 1, streak: streak, policy: policy) else {
            Issue.record("expected a retry with no limits")
            return
        }
        // A limit below 1 counts as 1: the first failure gives up.
        policy.maxAttempts = 0
        guard case .deadLetter = decide(Self.serverError, count: 1, streak: FailureStreak(), policy: policy) else {
            Issue.record("expected a dead letter")
            return
        }
    }
}
