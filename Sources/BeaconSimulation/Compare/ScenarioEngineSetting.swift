/// One engine setting with its value: a value of a scenario's `matrix`, or a
/// `beacon simulate --set engine.KEY=VALUE`. Read by the same code as the `engine` object,
/// so it takes exactly the values (and ranges) the `engine` object takes.
///
/// ```swift
/// let setting = try ScenarioEngineSetting.parse(assignment: "engine.batchSize=500")
/// setting.apply(to: &scenario.engine)   // batchSize 500
/// setting.label                         // "b500"
/// ```
public struct ScenarioEngineSetting: Sendable, Hashable {
    /// The key, one of the `engine` object's: `policy`, `batchSize`, `maxConcurrentRequests`,
    /// `maxEvents`, `maxBytes`, `durability`.
    public let key: String
    /// The value as written (a string's text, a number's digits).
    public let text: String
    /// An engine whose `key` holds the value.
    private let source: ScenarioEngine

    /// Makes this setting on `engine`.
    public func apply(to engine: inout ScenarioEngine) {
        switch key {
        case "policy": engine.policy = source.policy
        case "batchSize": engine.batchSize = source.batchSize
        case "maxConcurrentRequests": engine.maxConcurrentRequests = source.maxConcurrentRequests
        case "maxEvents": engine.maxEvents = source.maxEvents
        case "maxBytes": engine.maxBytes = source.maxBytes
        default: engine.durability = source.durability
        }
    }

    /// A short name for a variant: `b500` (batch size), `c4` (requests in flight), `e1000`
    /// (queue bound in events), `m65536` (in bytes), or the policy or durability as written.
    public var label: String {
        switch key {
        case "batchSize": "b\(text)"
        case "maxConcurrentRequests": "c\(text)"
        case "maxEvents": "e\(text)"
        case "maxBytes": "m\(text)"
        default: text
        }
    }

    /// `key=text`, as `--set` takes it and the JSON report echoes it.
    public var assignment: String { "\(key)=\(text)" }

    /// Reads `engine.KEY=VALUE` (VALUE is JSON, or else taken as a string: `engine.policy=every 2s`).
    /// - Throws: ``ScenarioError`` (line 0) naming the key and what it takes.
    public static func parse(
        assignment: String, checkPolicy: (@Sendable (String) -> String?)? = nil,
        concurrencyRange: ClosedRange<Int> = ScenarioEngine.maxConcurrentRequestsRange
    ) throws(ScenarioError) -> ScenarioEngineSetting {
        func failure(_ field: String, _ message: String) -> ScenarioError {
            ScenarioError(line: 0, column: 0, field: field, message: message)
        }
        guard let equals = assignment.firstIndex(of: "=") else {
            throw failure("--set", "found '\(ScenarioJSONReader.clip(assignment))'; expected engine.KEY=VALUE, such as engine.batchSize=500")
        }
        let path = String(assignment[..<equals])
        let value = String(assignment[assignment.index(after: equals)...])
        guard path.hasPrefix("engine."), ScenarioEngine.keys.contains(String(path.dropFirst("engine.".count))) else {
            throw failure(
                "--set", "'\(ScenarioJSONReader.clip(path))' is not an engine setting; use engine. and one of \(ScenarioEngine.keys.joined(separator: ", "))")
        }
        let key = String(path.dropFirst("engine.".count))
        // A number or a quoted string as JSON; anything else is the string as typed.
        let node: ScenarioJSON
        do {
            node = try ScenarioJSONReader.read(Array(value.utf8))
        } catch {
            node = ScenarioJSON(value: .string(value), line: 1, column: 1)
        }
        var decoder = ScenarioDecoder()
        decoder.checkPolicy = checkPolicy
        decoder.concurrencyRange = concurrencyRange
        guard let setting = read(key: key, node: node, path: "engine", decoder: &decoder) else {
            throw failure(path, decoder.firstError?.message ?? "cannot be read")
        }
        return setting
    }

    /// Reads `node` as the value of `key` (one of ``ScenarioEngine/keys``); `nil`, with the
    /// problem in `decoder`, when the engine would not take it.
    static func read(key: String, node: ScenarioJSON, path: String, decoder: inout ScenarioDecoder) -> ScenarioEngineSetting? {
        let before = decoder.errors.count
        var source = ScenarioEngine()
        source.read(
            ScenarioDecoder.Fields(path: path, line: node.line, column: node.column, members: [key: node]), decoder: &decoder)
        guard decoder.errors.count == before else { return nil }
        let text: String
        switch node.value {
        case .string(let string): text = string
        case .number(let literal): text = literal
        default: text = ScenarioDecoder.describe(node)
        }
        return ScenarioEngineSetting(key: key, text: text, source: source)
    }

    private init(key: String, text: String, source: ScenarioEngine) {
        self.key = key
        self.text = text
        self.source = source
    }
}
