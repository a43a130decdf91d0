/// One embedded collector of a scenario, standing for one of the engine's destinations.
///
/// In a file: `{"name": "warehouse", "faults": {"latencyMilliseconds": 20}}`.
public struct ScenarioCollector: Sendable, Hashable {
    /// The collector's name, unique in the scenario: `[A-Za-z0-9_-]{1,40}`. Steps refer to
    /// collectors by this name in `faults` and `paused`.
    public var name: String
    /// The faults in force from the start, and during every step that does not name this
    /// collector in its `faults` (default: none).
    public var faults: ScenarioFaults

    /// Creates a collector.
    public init(name: String, faults: ScenarioFaults = .none) {
        self.name = name
        self.faults = faults
    }

    /// The longest collector name, in characters.
    public static let maxNameLength = 40

    static let keys = ["name", "faults"]

    /// Reads a collector object; `nil` when it is not an object.
    init?(json node: ScenarioJSON, path: String, decoder: inout ScenarioDecoder) {
        guard let fields = decoder.object(node, path: path, expected: "a collector object", known: Self.keys) else {
            return nil
        }
        name =
            decoder.string(
                fields, "name", required: true,
                expected: "a collector name of 1 to \(Self.maxNameLength) letters, digits, '_' or '-'",
                validate: ScenarioDecoder.collectorNameProblem) ?? ""
        faults = fields["faults"].map { ScenarioFaults(json: $0, path: fields.path("faults"), decoder: &decoder) } ?? .none
    }
}
