/// What the fault plan does to one ingest request: a pure function of the plan, the
/// batch's size and one random draw in `0..<1`.
enum FaultDecision: Sendable, Hashable {
    /// Serve the request normally.
    case serve
    /// Answer 413: the batch has more events than the plan's `maxBatchEvents`.
    case batchTooLarge(limit: Int)
    /// Answer 500.
    case fail
    /// Answer 429 with `Retry-After`.
    case throttle(retryAfterSeconds: Int)
    /// Hold the request, then answer 503.
    case hang(seconds: Double)
    /// Close the connection without a response.
    case reset

    /// A short name for logs, stats and the request log.
    var name: String? {
        switch self {
        case .serve: return nil
        case .batchTooLarge: return "batch_too_large"
        case .fail: return "failure"
        case .throttle: return "throttle"
        case .hang: return "hang"
        case .reset: return "reset"
        }
    }

    /// Decides the fate of a request carrying `eventCount` events, given a draw in `0..<1`.
    static func decide(plan: FaultPlan, eventCount: Int, draw: Double) -> FaultDecision {
        if let limit = plan.maxBatchEvents, eventCount > limit {
            return .batchTooLarge(limit: limit)
        }
        var threshold = plan.failRate
        if draw < threshold { return .fail }
        threshold += plan.throttleRate
        if draw < threshold { return .throttle(retryAfterSeconds: plan.retryAfterSeconds) }
        threshold += plan.hangRate
        if draw < threshold { return .hang(seconds: min(plan.hangSeconds, FaultPlan.maxHangSeconds)) }
        threshold += plan.resetRate
        if draw < threshold { return .reset }
        return .serve
    }
}
