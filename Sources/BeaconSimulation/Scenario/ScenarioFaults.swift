/// Faults a scenario's embedded collector injects into ingest requests; the runner converts
/// it to the collector's own fault plan.
///
/// In a file, a fault plan is an object whose keys are all optional:
/// `{"failRate": 0.3, "throttleRate": 0.1, "retryAfterSeconds": 1}`. Each ingest request
/// draws one number; the four shares are stacked in the order fail, throttle, hang, reset,
/// so their sum must be at most 1.
public struct ScenarioFaults: Sendable, Hashable {
    /// Share of ingest requests answered 500, 0...1 (default 0).
    public var failRate: Double
    /// Share of ingest requests answered 429 with `Retry-After: retryAfterSeconds`, 0...1 (default 0).
    public var throttleRate: Double
    /// Share of ingest requests held for ``hangSeconds`` and then answered 503, 0...1 (default 0).
    public var hangRate: Double
    /// Share of ingest requests whose connection is closed without a response, 0...1 (default 0).
    public var resetRate: Double
    /// The `Retry-After` sent with injected 429s, whole seconds 0...86,400 (default 1).
    public var retryAfterSeconds: Int
    /// Delay added to every ingest request, whole milliseconds 0...60,000 (default 0).
    public var latencyMilliseconds: Int
    /// How long a hanging request is held, seconds 0...300 (default 30).
    public var hangSeconds: Double
    /// Batches with more events than this are answered 413, 1...10,000,000; `nil` (default) never.
    public var maxBatchEvents: Int?
    /// When `true`, the collector answers 503 to every ingest request (default `false`).
    public var down: Bool

    /// Creates a plan; by default, no faults.
    public init(
        failRate: Double = 0, throttleRate: Double = 0, hangRate: Double = 0, resetRate: Double = 0,
        retryAfterSeconds: Int = 1, latencyMilliseconds: Int = 0, hangSeconds: Double = 30,
        maxBatchEvents: Int? = nil, down: Bool = false
    ) {
        self.failRate = failRate
        self.throttleRate = throttleRate
        self.hangRate = hangRate
        self.resetRate = resetRate
        self.retryAfterSeconds = retryAfterSeconds
        self.latencyMilliseconds = latencyMilliseconds
        self.hangSeconds = hangSeconds
        self.maxBatchEvents = maxBatchEvents
        self.down = down
    }

    /// No faults: every request is served normally.
    public static let none = ScenarioFaults()

    /// `failRate + throttleRate + hangRate + resetRate`: the share of requests faulted by a draw.
    public var totalRate: Double { failRate + throttleRate + hangRate + resetRate }

    /// The keys a fault plan object may have.
    static let keys = [
        "failRate", "throttleRate", "hangRate", "resetRate", "retryAfterSeconds", "latencyMilliseconds",
        "hangSeconds", "maxBatchEvents", "down",
    ]

    /// Reads a fault plan object; fields in error keep their defaults.
    init(json node: ScenarioJSON, path: String, decoder: inout ScenarioDecoder) {
        self.init()
        guard let fields = decoder.object(node, path: path, expected: "a fault plan object", known: Self.keys) else {
            return
        }
        let share = ScenarioDecoder.Range(lower: 0, upper: 1)
        let what = "a share of ingest requests"
        failRate = decoder.double(fields, "failRate", range: share, expected: what) ?? failRate
        throttleRate = decoder.double(fields, "throttleRate", range: share, expected: what) ?? throttleRate
        hangRate = decoder.double(fields, "hangRate", range: share, expected: what) ?? hangRate
        resetRate = decoder.double(fields, "resetRate", range: share, expected: what) ?? resetRate
        retryAfterSeconds =
            decoder.integer(fields, "retryAfterSeconds", range: 0...86_400, expected: "a whole number of seconds")
            ?? retryAfterSeconds
        latencyMilliseconds =
            decoder.integer(fields, "latencyMilliseconds", range: 0...60_000, expected: "a whole number of milliseconds")
            ?? latencyMilliseconds
        hangSeconds =
            decoder.double(fields, "hangSeconds", range: .init(lower: 0, upper: 300), expected: "a number of seconds")
            ?? hangSeconds
        maxBatchEvents = decoder.integer(
            fields, "maxBatchEvents", range: 1...10_000_000, expected: "a whole number of events per batch")
        down = decoder.bool(fields, "down", expected: "true or false") ?? down
        if totalRate > 1 + 1e-9 {
            decoder.report(
                node, path,
                "failRate + throttleRate + hangRate + resetRate is \(ScenarioDecoder.format((totalRate * 1e6).rounded() / 1e6)); the shares must add up to at most 1"
            )
        }
    }
}
