/// What a scenario expects of one destination at its end (`expect.destinations.NAME`).
/// Every expectation optional; counts are whole numbers 0...10,000,000.
///
/// In a file: `"destinations": { "warehouse": { "drainedWithinSeconds": 10, "deadLetters": 0 } }`.
public struct ScenarioDestinationExpectations: Sendable, Hashable {
    /// Its share of the queue never held more events than this.
    public var maxDepth: Int?
    /// Nothing tracked before the last recovery was pending for it this many seconds after
    /// the recovery (more than 0, at most 86,400).
    public var drainedWithinSeconds: Double?
    /// Exactly this many events dead-lettered for it.
    public var deadLetters: Int?
    /// Exactly this many distinct events stored by its collector.
    public var delivered: Int?
    /// Half of its events went from `track` to its collector's store within this many
    /// seconds (more than 0, at most 86,400).
    public var latencyP50Seconds: Double?
    /// 99 in 100 of its events did.
    public var latencyP99Seconds: Double?

    /// Creates expectations; by default none.
    public init(
        maxDepth: Int? = nil, drainedWithinSeconds: Double? = nil, deadLetters: Int? = nil, delivered: Int? = nil,
        latencyP50Seconds: Double? = nil, latencyP99Seconds: Double? = nil
    ) {
        self.maxDepth = maxDepth
        self.drainedWithinSeconds = drainedWithinSeconds
        self.deadLetters = deadLetters
        self.delivered = delivered
        self.latencyP50Seconds = latencyP50Seconds
        self.latencyP99Seconds = latencyP99Seconds
    }

    static let keys = ["maxDepth", "drainedWithinSeconds", "deadLetters", "delivered", "latencyP50Seconds", "latencyP99Seconds"]

    /// Reads `expect.destinations.NAME`; fields in error stay `nil`.
    init(json node: ScenarioJSON, path: String, decoder: inout ScenarioDecoder) {
        self.init()
        guard let fields = decoder.object(node, path: path, expected: "an object of expectations", known: Self.keys)
        else { return }
        let counts = 0...ScenarioExpectations.maxCount
        maxDepth = decoder.integer(fields, "maxDepth", range: counts, expected: "a whole number of events")
        drainedWithinSeconds = decoder.double(
            fields, "drainedWithinSeconds", range: .init(lower: 0, lowerOpen: true, upper: 86_400),
            expected: "a number of seconds")
        deadLetters = decoder.integer(fields, "deadLetters", range: counts, expected: "a whole number of events")
        delivered = decoder.integer(fields, "delivered", range: counts, expected: "a whole number of events")
        let seconds = ScenarioDecoder.Range(lower: 0, lowerOpen: true, upper: 86_400)
        latencyP50Seconds = decoder.double(fields, "latencyP50Seconds", range: seconds, expected: "a number of seconds")
        latencyP99Seconds = decoder.double(fields, "latencyP99Seconds", range: seconds, expected: "a number of seconds")
    }
}
