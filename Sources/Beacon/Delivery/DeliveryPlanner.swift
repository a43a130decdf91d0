import BeaconWire
/// What a send's outcome means for its events: a pure function, tested exhaustively.
///
/// | outcome | decision |
/// |---|---|
/// | delivered | remove the events |
/// | retryable | keep them; wait per ``RetryPolicy`` (and `Retry-After`) |
/// | retryable, retries ran out, several events | split in halves to isolate the culprit, at once |
/// | retryable, retries ran out, one event | dead-letter it: "gave up after N attempts over T: reason" |
/// | a server error (5xx but 503) ``RetryPolicy/isolateAfter`` times in a row from a destination that does not fail at random (``FailureStreak/failsAtRandom``), or isolating, several events | split in halves to isolate the culprit, at once |
/// | the same, one event, failing alone ``RetryPolicy/isolatedEventFailures`` times, each right after a delivery around it | dead-letter it: "failed alone N times … while the events around it were delivered" |
/// | the same, one event, fewer times so far | keep it and send the events after it at once (``DeliveryDecision/probePast(reason:)``) |
/// | retryable, the events after a kept one failed too (probing) | keep them; wait per ``RetryPolicy``: the destination fails, not the event |
/// | retryable with `Retry-After`, retries ran out | wait as asked: the server asked for time, it did not refuse |
/// | rejected with reasons | dead-letter the named events; send the rest again at once |
/// | rejected without reasons, several events | split in halves to isolate the culprit |
/// | rejected without reasons, one event | dead-letter it |
/// | too large, several events | split in halves |
/// | too large, one event | dead-letter it |
/// | unauthorized | pause the destination and surface the error |
public enum DeliveryPlanner {
    /// Decides. `failures` counts consecutive failures before this one (for the backoff);
    /// `streak` the failed sends of the batch at the head (for giving up); `random` is a
    /// draw in `0..<1` for the jitter.
    public static func decide(
        _ result: SendResult, batch: OutgoingBatch, failures: Int, retryPolicy: RetryPolicy, random: Double,
        streak: FailureStreak = FailureStreak()
    ) -> DeliveryDecision {
        switch result.outcome {
        case .delivered:
            return .delivered
        case .retryable(let reason, let retryAfter):
            let attempts = streak.attempts < .max ? streak.attempts + 1 : .max
            let givesUp = retryPolicy.givesUp(afterAttempts: attempts, failingFor: streak.age)
            if givesUp, retryAfter == nil {
                let why = "gave up after \(attempts) attempts over \(format(streak.age)): \(reason)"
                if batch.events.count <= 1 {
                    return .deadLetter(batch.events.map { RejectedEvent(event: $0, reason: why) })
                }
                return .isolate(limit: (batch.events.count + 1) / 2, reason: why)
            }
            // A batch the destination keeps answering with a server error may hold an
            // event it cannot take (a NUL its database refuses): look for it long before
            // retries run out, and set it aside only once the events around it went through.
            // Not a destination that fails at random: its errors say nothing of the events.
            let suspects = streak.isIsolating
                || (!streak.failsAtRandom && retryPolicy.isolates(afterAttempts: attempts, status: result.status))
            if suspects, retryAfter == nil, !streak.isProbing {
                if batch.events.count > 1 {
                    return .isolate(
                        limit: (batch.events.count + 1) / 2,
                        reason: "looking for the event that fails: \(attempts) failed attempts over \(format(streak.age)): \(reason)")
                }
                // Failing alone right after events around it went through counts as evidence;
                // a failure of anything else on the way (a probe) resets it: a destination
                // that fails at random is not an event that cannot be stored.
                let evidence = streak.soloFailures + (streak.deliveredSinceSoloFailure ? 1 : 0)
                if evidence >= max(1, retryPolicy.isolatedEventFailures) {
                    let why = "failed alone \(evidence) times over \(format(streak.age)) while the events around it were delivered: \(reason)"
                    return .deadLetter(batch.events.map { RejectedEvent(event: $0, reason: why) })
                }
                // Try the events after it, to tell a failing event from a failing destination.
                return .probePast(reason: "failed alone (\(evidence) of \(retryPolicy.isolatedEventFailures) times after a delivery); trying the events after it: \(reason)")
            }
            // A probe that failed too: the destination is failing, not the event. Back off.
            let delay = retryPolicy.delay(afterFailures: failures < .max ? failures + 1 : .max, retryAfter: retryAfter, random: random)
            return .retry(after: delay, reason: reason, serverAsked: retryAfter)
        case .rejected(let rejections):
            let named = refused(batch.events, by: rejections)
            if !named.isEmpty {
                return .deadLetter(named)
            }
            return isolate(batch, reason: "refused by the destination (400) without a reason")
        case .tooLarge:
            return isolate(batch, reason: "too large for the destination (413) even alone")
        case .unauthorized(let reason):
            return .pause(reason: reason)
        }
    }

    /// The events `rejections` name, in batch order. A rejection names the event at its
    /// `index` when that event's `messageId` is the one it gives (or it gives none), else
    /// every event with its `messageId`. Ids compare as bytes, as a collector dedups:
    /// two ids that differ only in Unicode form are two events, and refusing one must
    /// not dead-letter the other.
    static func refused(_ events: [QueuedEvent], by rejections: [EventRejection]) -> [RejectedEvent] {
        var byIndex: [Int: EventRejection] = [:]
        var byId: [QueuedEvent.MessageIdKey: EventRejection] = [:]
        for rejection in rejections {
            let id = rejection.messageId.map(QueuedEvent.MessageIdKey.init)
            if let index = rejection.index, events.indices.contains(index), id == nil || id == events[index].messageIdKey {
                if byIndex[index] == nil { byIndex[index] = rejection }
            } else if let id, byId[id] == nil {
                byId[id] = rejection
            }
        }
        if byIndex.isEmpty, byId.isEmpty { return [] }
        return events.indices.compactMap { index in
            let event = events[index]
            guard let rejection = byIndex[index] ?? (byId.isEmpty ? nil : byId[event.messageIdKey]) else { return nil }
            return RejectedEvent(event: event, reason: deadLetterReason(rejection, messageId: event.messageId))
        }
    }

    /// A destination's refusal as a dead letter's reason: its code first (unless it gave
    /// none), and the event named by its `messageId` rather than by its position in one
    /// batch (`Event 52 is 3316 bytes` becomes `event_too_large: Event m-17 is 3316 bytes`):
    /// a position means nothing once the letter is retried in another batch.
    public static func deadLetterReason(_ rejection: EventRejection, messageId: String) -> String {
        var text = rejection.reason
        if let index = rejection.index {
            // At the start, or after the status the HTTP sender puts first (`HTTP 400: Event 3 …`).
            let position = "Event \(index)"
            var start = text.startIndex
            if !text.hasPrefix(position), text.hasPrefix("HTTP "), let colon = text.range(of: ": ") { start = colon.upperBound }
            let rest = text[start...]
            if rest.hasPrefix(position), rest.dropFirst(position.count).first?.isNumber != true {
                text = String(text[..<start]) + "Event \(messageId)" + rest.dropFirst(position.count)
            }
        }
        return rejection.code == EventRejection.unspecifiedCode ? text : "\(rejection.code): \(text)"
    }

    private static func isolate(_ batch: OutgoingBatch, reason: String) -> DeliveryDecision {
        if batch.events.count <= 1 {
            return .deadLetter(batch.events.map { RejectedEvent(event: $0, reason: reason) })
        }
        return .split(limit: (batch.events.count + 1) / 2)
    }

    /// A span for a reason text: `800ms`, `1.5s`, `42s`, `2m05s`, `12h00m`.
    static func format(_ duration: Duration) -> String {
        let millis = max(0, duration.inMilliseconds)
        if millis < 1000 { return "\(millis)ms" }
        let seconds = millis / 1000
        if seconds < 10 { return "\(seconds).\(millis % 1000 / 100)s" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m" + twoDigits(seconds % 60) + "s" }
        return "\(seconds / 3600)h" + twoDigits(seconds / 60 % 60) + "m"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
