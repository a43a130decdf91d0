/// What a scenario expects at its end, checked by the runner on top of its invariants.
/// Every expectation is optional; `nil` means "not checked". Counts are whole numbers
/// 0...10,000,000 (the most events a scenario may track).
///
/// In a file: `{"maxDepth": 6000, "deadLetters": 1, "dropped": 0}`.
public struct ScenarioExpectations: Sendable, Hashable {
    /// The deepest the engine's queue may get, in events, at any moment.
    public var maxDepth: Int?
    /// After the last step, the queue must be empty within this many seconds of scenario
    /// time, more than 0 and at most 86,400.
    public var drainedWithinSeconds: Double?
    /// Exactly this many events end up dead-lettered.
    public var deadLetters: Int?
    /// Exactly this many duplicate events end up stored by the collectors (usually 0).
    public var duplicatesStored: Int?
    /// At most this many redeliveries reach the collectors and are deduplicated by them.
    public var duplicatesSent: Int?
    /// Exactly this many events are dropped by the engine (queue bounds).
    public var dropped: Int?
    /// Exactly this many distinct events are stored by each collector.
    public var delivered: Int?
    /// Exactly this many events were posted and not acknowledged (refused by a full queue).
    public var refused: Int?
    /// At every destination, 99 in 100 events went from `track` to the collector's store
    /// within this many seconds (more than 0, at most 86,400).
    public var latencyP99Seconds: Double?
    /// Expectations of single destinations, by collector name.
    public var destinations: [String: ScenarioDestinationExpectations]

    /// Creates expectations; by default none.
    public init(
        maxDepth: Int? = nil, drainedWithinSeconds: Double? = nil, deadLetters: Int? = nil,
        duplicatesStored: Int? = nil, duplicatesSent: Int? = nil, dropped: Int? = nil, delivered: Int? = nil,
        refused: Int? = nil, latencyP99Seconds: Double? = nil, destinations: [String: ScenarioDestinationExpectations] = [:]
    ) {
        self.maxDepth = maxDepth
        self.drainedWithinSeconds = drainedWithinSeconds
        self.deadLetters = deadLetters
        self.duplicatesStored = duplicatesStored
        self.duplicatesSent = duplicatesSent
        self.dropped = dropped
        self.delivered = delivered
        self.refused = refused
        self.latencyP99Seconds = latencyP99Seconds
        self.destinations = destinations
    }

    /// Whether nothing is expected.
    public var isEmpty: Bool { self == ScenarioExpectations() }

    /// The largest count an expectation may give.
    public static let maxCount = 10_000_000

    static let keys = [
        "maxDepth", "drainedWithinSeconds", "deadLetters", "duplicatesStored", "duplicatesSent", "dropped", "delivered",
        "refused", "latencyP99Seconds", "destinations",
    ]

    /// Reads the `expect` object; fields in error stay `nil`. `collectors` are the names
    /// `destinations` may refer to.
    init(json node: ScenarioJSON, path: String, collectors: [String], decoder: inout ScenarioDecoder) {
        self.init()
        guard let fields = decoder.object(node, path: path, expected: "an object of expectations", known: Self.keys)
        else { return }
        let counts = 0...Self.maxCount
        maxDepth = decoder.integer(fields, "maxDepth", range: counts, expected: "a whole number of events")
        drainedWithinSeconds = decoder.double(
            fields, "drainedWithinSeconds", range: .init(lower: 0, lowerOpen: true, upper: 86_400),
            expected: "a number of seconds")
        deadLetters = decoder.integer(fields, "deadLetters", range: counts, expected: "a whole number of events")
        duplicatesStored = decoder.integer(
            fields, "duplicatesStored", range: counts, expected: "a whole number of events")
        duplicatesSent = decoder.integer(fields, "duplicatesSent", range: counts, expected: "a whole number of events")
        dropped = decoder.integer(fields, "dropped", range: counts, expected: "a whole number of events")
        delivered = decoder.integer(fields, "delivered", range: counts, expected: "a whole number of events")
        refused = decoder.integer(fields, "refused", range: counts, expected: "a whole number of events")
        latencyP99Seconds = decoder.double(
            fields, "latencyP99Seconds", range: .init(lower: 0, lowerOpen: true, upper: 86_400), expected: "a number of seconds")
        if let node = fields["destinations"],
            let named = decoder.object(
                node, path: fields.path("destinations"), expected: "an object: collector name → expectations",
                known: collectors)
        {
            for (name, value) in named.members {
                destinations[name] = ScenarioDestinationExpectations(
                    json: value, path: named.path(name), decoder: &decoder)
            }
        }
    }
}
