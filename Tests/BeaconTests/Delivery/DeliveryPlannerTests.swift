import BeaconWire
import Beacon
import Testing

@Suite("Delivery planner and retry policy (pure)")
struct DeliveryPlannerTests {
    func batch(_ count: Int) -> OutgoingBatch {
        OutgoingBatch(
            id: 1,
            events: (0..<count).map { QueuedEvent(sequence: Int64($0 + 1), messageId: "m\($0)", name: "e", payload: Array("{}".utf8)) },
            attempt: 1)
    }

    func decide(_ outcome: SendOutcome, count: Int = 4, failures: Int = 0, random: Double = 0) -> DeliveryDecision {
        DeliveryPlanner.decide(SendResult(outcome), batch: batch(count), failures: failures, retryPolicy: RetryPolicy(), random: random)
    }

    @Test func deliveredRemovesAll() {
        #expect(decide(.delivered) == .delivered)
    }

    @Test func retryableBacksOffExponentially() {
        let delays = (0..<9).map { failures -> Duration in
            guard case .retry(let delay, _, _) = decide(.retryable(reason: "503", retryAfter: nil), failures: failures) else { return .zero }
            return delay
        }
        #expect(delays == [0.5, 1, 2, 4, 8, 16, 32, 60, 60].map { Duration.milliseconds(Int64($0 * 1000)) })
    }

    @Test func jitterShortensButKeepsGrowth() {
        let policy = RetryPolicy()
        for failures in 1..<7 {
            let longestNow = policy.delay(afterFailures: failures, retryAfter: nil, random: 0)
            let shortestNext = policy.delay(afterFailures: failures + 1, retryAfter: nil, random: 0.999_999)
            #expect(policy.delay(afterFailures: failures, retryAfter: nil, random: 0.999_999) >= longestNow * 0.8)
            #expect(shortestNext > longestNow)
        }
    }

    @Test func retryAfterIsHonouredAndCapped() {
        #expect(decide(.retryable(reason: "429", retryAfter: .seconds(7))) == .retry(after: .seconds(7), reason: "429", serverAsked: .seconds(7)))
        // Backoff longer than Retry-After wins: never sooner than either.
        #expect(decide(.retryable(reason: "429", retryAfter: .seconds(1)), failures: 5) == .retry(after: .seconds(16), reason: "429", serverAsked: .seconds(1)))
        #expect(decide(.retryable(reason: "429", retryAfter: .seconds(86_400))) == .retry(after: .seconds(600), reason: "429", serverAsked: .seconds(86_400)))
    }

    @Test func rejectedWithReasonsDeadLettersOnlyThose() {
        let decision = decide(.rejected([EventRejection(messageId: "m2", reason: "bad"), EventRejection(messageId: "nope", reason: "x")]))
        guard case .deadLetter(let rejected) = decision else {
            Issue.record("expected dead letters, got \(decision)")
            return
        }
        #expect(rejected.map(\.event.messageId) == ["m2"])
        #expect(rejected.map(\.reason) == ["bad"])
    }

    @Test func rejectionsNameEventsByIndexThenByIdBytes() {
        let composed = "id-\u{E9}", decomposed = "id-e\u{301}"
        let ids = ["m0", composed, decomposed, "m3"]
        let batch = OutgoingBatch(
            id: 1, events: ids.enumerated().map { QueuedEvent(sequence: Int64($0.offset + 1), messageId: $0.element, name: "e", payload: Array("{}".utf8)) },
            attempt: 1)
        func refused(_ rejections: [EventRejection]) -> [Int64] {
            let decision = DeliveryPlanner.decide(
                SendResult(.rejected(rejections)), batch: batch, failures: 0, retryPolicy: RetryPolicy(), random: 0)
            guard case .deadLetter(let rejected) = decision else { return [] }
            return rejected.map(\.event.sequence)
        }
        // By id alone: only the event with those bytes, not its canonical twin.
        #expect(refused([EventRejection(messageId: decomposed, reason: "r")]) == [3])
        #expect(refused([EventRejection(messageId: composed, reason: "r")]) == [2])
        // By index, agreeing with the id or without one.
        #expect(refused([EventRejection(index: 2, messageId: decomposed, reason: "r")]) == [3])
        #expect(refused([EventRejection(index: 3, messageId: nil, reason: "r")]) == [4])
        // An index that contradicts the id (or lies outside the batch) yields to the id.
        #expect(refused([EventRejection(index: 0, messageId: decomposed, reason: "r")]) == [3])
        #expect(refused([EventRejection(index: 9, messageId: "m3", reason: "r")]) == [4])
        #expect(refused([EventRejection(index: 9, messageId: nil, reason: "r")]) == [])
        // Several, in batch order, each once.
        #expect(refused([
            EventRejection(index: 3, messageId: "m3", reason: "a"), EventRejection(messageId: "m0", reason: "b"),
            EventRejection(index: 3, messageId: nil, reason: "c"),
        ]) == [1, 4])
    }

    @Test func rejectedWithoutReasonsSplitsThenDeadLettersTheCulprit() {
        #expect(decide(.rejected([]), count: 5) == .split(limit: 3))
        #expect(decide(.rejected([EventRejection(messageId: "unknown", reason: "x")]), count: 2) == .split(limit: 1))
        guard case .deadLetter(let single) = decide(.rejected([]), count: 1) else {
            Issue.record("expected a dead letter")
            return
        }
        #expect(single.map(\.event.messageId) == ["m0"])
    }

    @Test func tooLargeSplitsInHalvesDownToOne() {
        #expect(decide(.tooLarge, count: 100) == .split(limit: 50))
        #expect(decide(.tooLarge, count: 3) == .split(limit: 2))
        #expect(decide(.tooLarge, count: 2) == .split(limit: 1))
        guard case .deadLetter(let single) = decide(.tooLarge, count: 1) else {
            Issue.record("expected a dead letter")
            return
        }
        #expect(single.first?.reason.contains("413") == true)
    }

    @Test func unauthorizedPauses() {
        #expect(decide(.unauthorized(reason: "401: bad write key")) == .pause(reason: "401: bad write key"))
    }

    /// A dead letter names its event by messageId and the destination's code, not by a
    /// position in a batch that a retry changes.
    @Test(arguments: [
        (EventRejection(index: 52, messageId: "m-17", code: "event_too_large", reason: "Event 52 is 3316 bytes; the limit is 32 KB."),
         "event_too_large: Event m-17 is 3316 bytes; the limit is 32 KB."),
        (EventRejection(index: 5, messageId: "m-17", code: "invalid_text", reason: "Event 52 holds a NUL."),
         "invalid_text: Event 52 holds a NUL."),
        (EventRejection(index: 0, messageId: "m-17", code: "missing_event_name", reason: "Event 0: missing \"event\"."),
         "missing_event_name: Event m-17: missing \"event\"."),
        (EventRejection(messageId: "m-17", reason: "properties.index must be a string"), "properties.index must be a string"),
        // As the HTTP sender gives a collector's rejection: its status first.
        (EventRejection(index: 3, messageId: "m-17", code: "event_too_large", reason: "HTTP 400: Event 3 is 3164 bytes"),
         "event_too_large: HTTP 400: Event m-17 is 3164 bytes"),
        (EventRejection(index: 3, messageId: "m-17", code: "event_too_large", reason: "HTTP 400: Event 31 is 3164 bytes"),
         "event_too_large: HTTP 400: Event 31 is 3164 bytes"),
        (EventRejection(index: 3, messageId: "m-17", code: "x", reason: "HTTP 400"), "x: HTTP 400"),
    ])
    func deadLetterReasonNamesTheMessageId(rejection: EventRejection, expected: String) {
        #expect(DeliveryPlanner.deadLetterReason(rejection, messageId: "m-17") == expected)
    }
}
