/// The engine a scenario runs: flush policy, batching, concurrency, queue bounds, durability.
///
/// In a file, the `engine` object and each of its keys are optional.
public struct ScenarioEngine: Sendable, Hashable {
    /// The flush policy text, 1...200 characters (default `"count 100 or every 1s"`). It is kept
    /// as written; the runner validates it with the engine's policy parser.
    public var policy: String
    /// The most events in one request, 1...10,000 (default 100).
    public var batchSize: Int
    /// The most requests in flight at once, within ``maxConcurrentRequestsRange`` (default 1).
    public var maxConcurrentRequests: Int
    /// The queue's bound in events, 1...100,000,000; `nil` (default) for the engine's own default.
    public var maxEvents: Int?
    /// The queue's bound in bytes, 1,024...2^40; `nil` (default) for the engine's own default.
    public var maxBytes: Int?
    /// What the queue must survive (default `.processCrash`).
    public var durability: ScenarioDurability

    /// Creates engine settings; by default those listed on each property.
    public init(
        policy: String = ScenarioEngine.defaultPolicy, batchSize: Int = 100, maxConcurrentRequests: Int = 1,
        maxEvents: Int? = nil, maxBytes: Int? = nil, durability: ScenarioDurability = .processCrash
    ) {
        self.policy = policy
        self.batchSize = batchSize
        self.maxConcurrentRequests = maxConcurrentRequests
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
        self.durability = durability
    }

    /// The engine's range for requests in flight (its `Destination.maxConcurrentRequestsRange`,
    /// which this module cannot import: `beacon simulate` passes the engine's own to
    /// ``Scenario/parse(_:checkPolicy:concurrencyRange:)``, and a test holds the two equal).
    public static let maxConcurrentRequestsRange = 1...16

    /// The policy used when a scenario gives none.
    public static let defaultPolicy = "count 100 or every 1s"

    static let keys = ["policy", "batchSize", "maxConcurrentRequests", "maxEvents", "maxBytes", "durability"]

    /// Reads the `engine` object; fields in error keep their defaults.
    init(json node: ScenarioJSON, path: String, decoder: inout ScenarioDecoder) {
        self.init()
        guard let fields = decoder.object(node, path: path, expected: "an object of engine settings", known: Self.keys)
        else { return }
        read(fields, decoder: &decoder)
    }

    /// Sets what `fields` holds (the keys of ``keys``), each checked against its range;
    /// keys absent or in error leave their setting as it was. The `engine` object, a
    /// `matrix` value and a `--set` all go through here, so all three take the same values.
    mutating func read(_ fields: ScenarioDecoder.Fields, decoder: inout ScenarioDecoder) {
        let checkPolicy = decoder.checkPolicy
        policy =
            decoder.string(
                fields, "policy", expected: "a flush policy of 1 to 200 characters, such as \"count 100 or every 1s\"",
                validate: { text in
                    if text.isEmpty { return "found an empty string" }
                    if text.count > 200 { return "found \(text.count) characters" }
                    return checkPolicy?(text).map { "found \"\(ScenarioJSONReader.clip(text))\", which the engine does not read: \($0)" }
                }) ?? policy
        batchSize = decoder.integer(fields, "batchSize", range: 1...10_000, expected: "a whole number of events") ?? batchSize
        maxConcurrentRequests =
            decoder.integer(
                fields, "maxConcurrentRequests", range: decoder.concurrencyRange, expected: "a whole number of requests")
            ?? maxConcurrentRequests
        maxEvents = decoder.integer(fields, "maxEvents", range: 1...100_000_000, expected: "a whole number of events") ?? maxEvents
        maxBytes = decoder.integer(fields, "maxBytes", range: 65_536...(1 << 40), expected: "a whole number of bytes") ?? maxBytes
        let choices = ScenarioDurability.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        durability =
            decoder.string(
                fields, "durability", expected: choices,
                validate: { ScenarioDurability(rawValue: $0) == nil ? "found \"\(ScenarioJSONReader.clip($0))\"" : nil }
            ).flatMap(ScenarioDurability.init(rawValue:)) ?? durability
    }
}
