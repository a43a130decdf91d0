/// How long to wait before sending again after a retryable failure: exponential backoff
/// with jitter, never sooner than the server's `Retry-After`.
///
/// The n-th consecutive failure waits `min(maxDelay, initialDelay × multiplier^(n-1))`,
/// shortened by up to `jitter` (a share, drawn per failure) so that many clients do not
/// retry in step. With the defaults (0.5 s, ×2, 60 s, 20 %) waits are 0.4–0.5 s, 0.8–1 s,
/// 1.6–2 s, ... and each wait is longer than the one before until the maximum.
///
/// Retries are not endless: once the batch at the head has failed ``maxAttempts`` times
/// in a row, or has kept failing for ``maxAge``, the batcher gives up on it. It splits the
/// batch in halves, sending each once, down to the event that still fails alone, and
/// dead-letters that event with the reason ("gave up after 100 attempts over 2h13m: HTTP
/// 500 ..."); the rest flows. A failure whose response says when to come back
/// (`Retry-After`) is waited out rather than given up on. `nil` turns a limit off.
///
/// ```swift
/// var retry = RetryPolicy()
/// retry.maxAttempts = 20          // give up sooner
/// retry.maxAge = .seconds(3600)   // or after an hour of failures
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The first wait. Default 500 ms.
    public var initialDelay: Duration = .milliseconds(500)
    /// The longest wait from backoff alone. Default 60 s.
    public var maxDelay: Duration = .seconds(60)
    /// Growth per failure. Default 2.
    public var multiplier: Double = 2
    /// Share of the wait removed at random (0 to 1). Default 0.2.
    public var jitter: Double = 0.2
    /// The longest `Retry-After` honoured; longer ones are cut to this. Default 10 min.
    public var maxRetryAfter: Duration = .seconds(600)
    /// Failed attempts in a row after which the batch at the head is given up on (split to
    /// isolate the event that fails, which is dead-lettered). At least 1; `nil`: no limit.
    /// Default 100 (with the default backoff, 75 to 93 minutes of failures).
    public var maxAttempts: Int? = 100
    /// How long the batch at the head may keep failing, from its first failure, before it
    /// is given up on. `nil`: no limit. Default 12 hours.
    public var maxAge: Duration? = .seconds(12 * 3600)
    /// Failed attempts in a row, the last answered with a server error (5xx other than
    /// 503, which says the destination is down), after which the batch at the head is
    /// searched for an event the destination cannot take: it is split in halves, each
    /// sent at once, and the event that still fails alone is dead-lettered once it failed
    /// alone ``isolatedEventFailures`` times, each right after events around it were
    /// delivered ("failed alone 10 times … while the events around it were delivered").
    /// While nothing goes through, nothing is dead-lettered: the backoff goes on. At least 1; `nil`: only when retries run out. Default 5 (about 15 s of
    /// failures with the default backoff).
    public var isolateAfter: Int? = 5
    /// How many times the event that search finds must fail alone, each time right after
    /// events around it were delivered and with no other failure in between, before it is
    /// dead-lettered. A destination that fails at random (30 % of sends, say) would
    /// otherwise have a good event set aside now and then. At least 1. Default 10.
    public var isolatedEventFailures: Int = 10
    /// How long a destination counts as failing at random after a batch it had refused
    /// went through whole when sent again: meanwhile its server errors back off and do
    /// not start the search for an event it cannot take (``isolateAfter``), which is for
    /// one event that fails where the others go through. A flaky destination (30 % of
    /// sends refused) keeps its batch size; a poison event in it waits for the give-up
    /// limit. Default 10 minutes.
    public var randomFailureMemory: Duration = .seconds(600)

    public init() {}

    public init(initialDelay: Duration, maxDelay: Duration, multiplier: Double = 2, jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// Whether a batch that failed `attempts` times in a row, the first failure `failingFor`
    /// ago, is given up on.
    public func givesUp(afterAttempts attempts: Int, failingFor: Duration) -> Bool {
        if let maxAttempts, attempts >= max(1, maxAttempts) { return true }
        if let maxAge, failingFor >= maxAge { return true }
        return false
    }

    /// Whether the `attempts`-th failure in a row, answered with HTTP `status` (nil: no
    /// answer), starts the search for an event the destination cannot take.
    public func isolates(afterAttempts attempts: Int, status: Int?) -> Bool {
        guard let isolateAfter, let status, (500...599).contains(status), status != 503 else { return false }
        return attempts >= max(1, isolateAfter)
    }

    /// The wait after `failures` consecutive failures (1 for the first), given the
    /// server's `Retry-After` and a random draw in `0..<1`.
    public func delay(afterFailures failures: Int, retryAfter: Duration?, random: Double) -> Duration {
        let initial = initialDelay.inSeconds
        let exponent = failures > 1 ? failures - 1 : 0
        let base = min(maxDelay.inSeconds, initial * pow(multiplier, exponent))
        let jittered = base * (1 - min(max(jitter, 0), 1) * min(max(random, 0), 1))
        var delay = Duration.seconds(jittered)
        if let retryAfter {
            delay = max(delay, min(retryAfter, maxRetryAfter))
        }
        return delay
    }
}

/// `pow` without Foundation.
@inline(__always)
private func pow(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    var remaining = exponent
    var factor = base
    while remaining > 0 {
        if remaining & 1 == 1 { result *= factor }
        factor *= factor
        remaining >>= 1
        if result > 1e12 { return result }
    }
    return result
}
