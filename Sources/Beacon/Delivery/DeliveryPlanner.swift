/// What a send's outcome means for its events: a pure function, tested exhaustively.
///
/// | outcome | decision |
/// |---|---|
/// | delivered | remove the events |
/// | retryable | keep them; wait per ``RetryPolicy`` (and `Retry-After`) |
/// | rejected with reasons | dead-letter the named events; send the rest again at once |
/// | rejected without reasons, several events | split in halves to isolate the culprit |
/// | rejected without reasons, one event | dead-letter it |
/// | too large, several events | split in halves |
/// | too large, one event | dead-letter it |
/// | unauthorized | pause the destination and surface the error |
public enum DeliveryPlanner {
    /// Decides. `failures` counts consecutive failures before this one; `random` is a
    /// draw in `0..<1` for the jitter.
    public static func decide(
        _ result: SendResult, batch: OutgoingBatch, failures: Int, retryPolicy: RetryPolicy, random: Double
    ) -> DeliveryDecision {
        switch result.outcome {
        case .delivered:
            return .delivered
        case .retryable(let reason, let retryAfter):
            let delay = retryPolicy.delay(afterFailures: failures < .max ? failures + 1 : .max, retryAfter: retryAfter, random: random)
            return .retry(after: delay, reason: reason)
        case .rejected(let rejections):
            var reasons: [String: String] = [:]
            for rejection in rejections {
                if let id = rejection.messageId { reasons[id] = rejection.reason }
            }
            let named = batch.events.compactMap { event in
                reasons[event.messageId].map { (event, $0) }
            }
            if !named.isEmpty {
                return .deadLetter(named.map { RejectedEvent(event: $0.0, reason: $0.1) })
            }
            return isolate(batch, reason: "refused by the destination (400) without a reason")
        case .tooLarge:
            return isolate(batch, reason: "too large for the destination (413) even alone")
        case .unauthorized(let reason):
            return .pause(reason: reason)
        }
    }

    private static func isolate(_ batch: OutgoingBatch, reason: String) -> DeliveryDecision {
        if batch.events.count <= 1 {
            return .deadLetter(batch.events.map { RejectedEvent(event: $0, reason: reason) })
        }
        return .split(limit: (batch.events.count + 1) / 2)
    }
}
