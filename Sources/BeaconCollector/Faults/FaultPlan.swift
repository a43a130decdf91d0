/// Faults the collector injects into ingest requests (`POST /v1/batch`, `/v1/b`, `/v1/track`),
/// to show how a sender copes with a bad network or a bad server.
///
/// Each ingest request draws one number from the collector's seeded generator; the shares
/// below are stacked in this order, so their sum should stay at or under 1:
/// `failRate` (500), `throttleRate` (429 with `Retry-After`), `hangRate` (hold the request
/// for `hangSeconds`, then 503), `resetRate` (close the connection without a response).
/// `latencyMs` delays every ingest request; `maxBatchEvents` answers 413 to any
/// batch with more events; `down` answers 503 to every route except `/health` and
/// `/admin/...`. A faulted request stores nothing.
///
/// The same plan travels as JSON through `GET/PUT /admin/faults`:
/// `{"failRate":0.3,"throttleRate":0.1,"retryAfter":1,"down":false}` (missing keys take
/// their defaults). The keys are named as `beacon collector`'s flags are (`--latency-ms`
/// is `latencyMs`); `latencyMilliseconds` and `retryAfterSeconds`, their names before
/// 0.6.0, still read.
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

    /// The JSON keys, named as `beacon collector`'s flags are (`--latency-ms` is
    /// `latencyMs`, `--retry-after` is `retryAfter`).
    enum CodingKeys: String, CodingKey, CaseIterable {
        case failRate, throttleRate, retryAfter, latencyMs, hangRate, hangSeconds, resetRate, maxBatchEvents, down
    }

    /// Names the keys had before 0.6.0, still read: each with the key it now has.
    static let formerKeys: [(former: String, key: CodingKeys)] = [
        ("retryAfterSeconds", .retryAfter), ("latencyMilliseconds", .latencyMs),
    ]

    /// Keys a plan's JSON may carry beside its own: `GET /admin/faults` answers with the
    /// plan's `preset` name and the collector's `seed`, so a document read back is a plan.
    static let documentKeys: Set<String> = ["preset", "seed"]

    /// Decodes a plan; absent keys take their defaults, so `{"down":true}` is a full plan.
    /// A key that is not a plan's is refused, naming it (a misspelt fault would otherwise
    /// be no fault at all); the former names of `retryAfter` and `latencyMs` still read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(CodingKeys.allCases.map(\.stringValue)).union(Self.formerKeys.map(\.former)).union(Self.documentKeys)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            let keys = CodingKeys.allCases.map(\.stringValue).joined(separator: ", ")
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "'\(PrintableKey.cut(unknown))' is not a fault plan key; use \(keys)"))
        }
        /// The value under `key`, or under its former name (never both).
        func value<T: Decodable>(_ type: T.Type, _ key: CodingKeys) throws -> T? {
            let former = Self.formerKeys.first { $0.key == key }.map { AnyKey($0.former) }
            let current = try container.decodeIfPresent(T.self, forKey: AnyKey(key.stringValue))
            guard let former, let old = try container.decodeIfPresent(T.self, forKey: former) else { return current }
            guard current == nil else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "give \(key.stringValue) or its former name \(former.stringValue), not both"))
            }
            return old
        }
        let defaults = FaultPlan()
        failRate = try value(Double.self, .failRate) ?? defaults.failRate
        throttleRate = try value(Double.self, .throttleRate) ?? defaults.throttleRate
        retryAfterSeconds = try value(Int.self, .retryAfter) ?? defaults.retryAfterSeconds
        latencyMilliseconds = try value(Int.self, .latencyMs) ?? defaults.latencyMilliseconds
        hangRate = try value(Double.self, .hangRate) ?? defaults.hangRate
        hangSeconds = try value(Double.self, .hangSeconds) ?? defaults.hangSeconds
        resetRate = try value(Double.self, .resetRate) ?? defaults.resetRate
        maxBatchEvents = try value(Int.self, .maxBatchEvents)
        down = try value(Bool.self, .down) ?? defaults.down
    }

    /// Encodes the plan under the keys the flags name (``CodingKeys``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(failRate, forKey: .failRate)
        try container.encode(throttleRate, forKey: .throttleRate)
        try container.encode(retryAfterSeconds, forKey: .retryAfter)
        try container.encode(latencyMilliseconds, forKey: .latencyMs)
        try container.encode(hangRate, forKey: .hangRate)
        try container.encode(hangSeconds, forKey: .hangSeconds)
        try container.encode(resetRate, forKey: .resetRate)
        try container.encodeIfPresent(maxBatchEvents, forKey: .maxBatchEvents)
        try container.encode(down, forKey: .down)
    }

    /// Any key of a JSON object, to find those that are not a plan's.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A key from outside, cut for a message.
    enum PrintableKey {
        static func cut(_ key: String) -> String {
            let printable = String(key.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
            return printable.count > 64 ? String(printable.prefix(64)) + "… (\(key.utf8.count) bytes)" : printable
        }
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
            throw FaultPlanError(message: "retryAfter is \(retryAfterSeconds); use 0 to 86400 seconds.")
        }
        if latencyMilliseconds < 0 || latencyMilliseconds > 60_000 {
            throw FaultPlanError(message: "latencyMs is \(latencyMilliseconds); use 0 to 60000 milliseconds.")
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
