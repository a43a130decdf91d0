/// Faults the collector injects into ingest requests (`POST /v1/batch`, `/v1/b`, `/v1/track`),
/// to show how a sender copes with a bad network or a bad server.
///
/// Each ingest request draws one number from the collector's seeded generator; the shares
/// below are stacked in this order, so their sum should stay at or under 1:
/// `failRate` (500), `throttleRate` (429 with `Retry-After`), `hangRate` (hold the request
/// for `hangSeconds`, then 503), `resetRate` (close the connection without a response).
/// `latencyMilliseconds` delays every ingest request; `maxBatchEvents` answers 413 to any
/// batch with more events; `down` answers 503 to every route except `/health` and
/// `/admin/...`. A faulted request stores nothing.
///
/// The same plan travels as JSON through `GET/PUT /admin/faults`:
/// `{"failRate":0.3,"throttleRate":0.1,"retryAfterSeconds":1,"down":false}` (missing keys
/// take their defaults).
public struct FaultPlan: Sendable, Hashable, Codable {
    /// Share of ingest requests answered 500.
    public var failRate: Double
    /// Share of ingest requests answered 429 with `Retry-After: retryAfterSeconds`.
    public var throttleRate: Double
    /// The `Retry-After` value sent with injected 429s, in whole seconds.
    public var retryAfterSeconds: Int
    /// Delay added to every ingest request, in milliseconds.
    public var latencyMilliseconds: Int
    /// Share of ingest requests held for ``hangSeconds`` (past a client's timeout) before a 503.
    public var hangRate: Double
    /// How long a hanging request is held, in seconds (at most ``FaultPlan/maxHangSeconds``).
    public var hangSeconds: Double
    /// Share of ingest requests whose connection is closed without a response.
    public var resetRate: Double
    /// Batches with more events than this are answered 413; `nil` disables it.
    public var maxBatchEvents: Int?
    /// When `true`, every route but `/health` and `/admin/...` answers 503.
    public var down: Bool

    /// The longest hang a plan may ask for, in seconds.
    public static let maxHangSeconds: Double = 300

    /// Creates a plan; by default, no faults.
    public init(
        failRate: Double = 0,
        throttleRate: Double = 0,
        retryAfterSeconds: Int = 1,
        latencyMilliseconds: Int = 0,
        hangRate: Double = 0,
        hangSeconds: Double = 30,
        resetRate: Double = 0,
        maxBatchEvents: Int? = nil,
        down: Bool = false
    ) {
        self.failRate = failRate
        self.throttleRate = throttleRate
        self.retryAfterSeconds = retryAfterSeconds
        self.latencyMilliseconds = latencyMilliseconds
        self.hangRate = hangRate
        self.hangSeconds = hangSeconds
        self.resetRate = resetRate
        self.maxBatchEvents = maxBatchEvents
        self.down = down
    }

    enum CodingKeys: String, CodingKey {
        case failRate, throttleRate, retryAfterSeconds, latencyMilliseconds, hangRate, hangSeconds, resetRate,
            maxBatchEvents, down
    }

    /// Decodes a plan; absent keys take their defaults, so `{"down":true}` is a full plan.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = FaultPlan()
        failRate = try container.decodeIfPresent(Double.self, forKey: .failRate) ?? defaults.failRate
        throttleRate = try container.decodeIfPresent(Double.self, forKey: .throttleRate) ?? defaults.throttleRate
        retryAfterSeconds =
            try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds) ?? defaults.retryAfterSeconds
        latencyMilliseconds =
            try container.decodeIfPresent(Int.self, forKey: .latencyMilliseconds) ?? defaults.latencyMilliseconds
        hangRate = try container.decodeIfPresent(Double.self, forKey: .hangRate) ?? defaults.hangRate
        hangSeconds = try container.decodeIfPresent(Double.self, forKey: .hangSeconds) ?? defaults.hangSeconds
        resetRate = try container.decodeIfPresent(Double.self, forKey: .resetRate) ?? defaults.resetRate
        maxBatchEvents = try container.decodeIfPresent(Int.self, forKey: .maxBatchEvents)
        down = try container.decodeIfPresent(Bool.self, forKey: .down) ?? defaults.down
    }

    /// Checks that every share is in 0...1, their sum at most 1, and durations in range.
    ///
    /// - Throws: ``FaultPlanError`` naming the first bad field and its allowed range.
    public func validate() throws(FaultPlanError) {
        let shares: [(String, Double)] = [
            ("failRate", failRate), ("throttleRate", throttleRate), ("hangRate", hangRate), ("resetRate", resetRate),
        ]
        for (name, share) in shares where !(share >= 0 && share <= 1) {
            throw FaultPlanError(message: "\(name) is \(share); use a share between 0 and 1.")
        }
        let total = shares.reduce(0) { $0 + $1.1 }
        if total > 1.000_001 {
            throw FaultPlanError(
                message: "failRate + throttleRate + hangRate + resetRate is \(total); keep the sum at or under 1.")
        }
        if retryAfterSeconds < 0 || retryAfterSeconds > 86_400 {
            throw FaultPlanError(message: "retryAfterSeconds is \(retryAfterSeconds); use 0 to 86400.")
        }
        if latencyMilliseconds < 0 || latencyMilliseconds > 60_000 {
            throw FaultPlanError(message: "latencyMilliseconds is \(latencyMilliseconds); use 0 to 60000.")
        }
        if !(hangSeconds >= 0 && hangSeconds <= FaultPlan.maxHangSeconds) {
            throw FaultPlanError(
                message: "hangSeconds is \(hangSeconds); use 0 to \(Int(saturating: FaultPlan.maxHangSeconds)).")
        }
        if let maxBatchEvents, maxBatchEvents < 1 {
            throw FaultPlanError(message: "maxBatchEvents is \(maxBatchEvents); use 1 or more, or leave it out.")
        }
    }
}
