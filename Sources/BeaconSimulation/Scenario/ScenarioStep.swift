/// One step of a scenario's timeline.
///
/// Each step states the world fully for its duration: nothing carries over from the step
/// before (a collector paused or offline in one step is back in the next unless that step
/// says otherwise). The one-shot actions `burst`, `poison`, `kill` and `retryNow` happen at
/// the step's start, in that order: kill and restart first, then the burst and poison events
/// are tracked, then retry-now.
///
/// In a file: `{"name": "tunnel", "seconds": 10, "rate": 200, "offline": true, "burst": 2000}`;
/// only `seconds` is required.
public struct ScenarioStep: Sendable, Hashable {
    /// The step's name, 1...60 characters without control characters (default `"step N"`, N 1-based).
    public var name: String
    /// How long the step lasts in scenario time, more than 0 and at most 86,400 seconds
    /// (divided by the scenario's `timeScale` in wall time).
    public var seconds: Double
    /// Events tracked per second of scenario time during the step, 0...100,000 (default 0);
    /// multiplied by `timeScale` in wall time.
    public var rate: Double
    /// When `true`, the engine's network is cut during the step (default `false`).
    public var offline: Bool
    /// Fault plans in force during this step only, by collector name; collectors not named
    /// run their base ``ScenarioCollector/faults`` (default: none named).
    public var faults: [String: ScenarioFaults]
    /// Names of the collectors paused during this step, in file order, without repeats (default none).
    public var paused: [String]
    /// Events tracked at once at the step's start, 0...1,000,000 (default 0).
    public var burst: Int
    /// Events tracked at the step's start that the collectors reject as invalid, so the
    /// engine must dead-letter them, 0...1,000 (default 0).
    public var poison: Int
    /// When `true`, the engine process is killed (`kill -9`) at the step's start and restarted.
    public var kill: Bool
    /// When `true`, the operator asks the engine to retry now at the step's start.
    public var retryNow: Bool

    /// Creates a step.
    public init(
        name: String, seconds: Double, rate: Double = 0, offline: Bool = false,
        faults: [String: ScenarioFaults] = [:], paused: [String] = [], burst: Int = 0, poison: Int = 0,
        kill: Bool = false, retryNow: Bool = false
    ) {
        self.name = name
        self.seconds = seconds
        self.rate = rate
        self.offline = offline
        self.faults = faults
        self.paused = paused
        self.burst = burst
        self.poison = poison
        self.kill = kill
        self.retryNow = retryNow
    }

    /// The longest step name, in characters.
    public static let maxNameLength = 60

    /// Events the rate tracks over the step: `rate × seconds`, rounded down (a sliver of
    /// 1e-9 is forgiven, so 2.3 × 100 gives 230, not 229); `Int.max` when it does not fit.
    public var rateEvents: Int {
        let product = rate * seconds
        guard !product.isNaN, product > 0 else { return 0 }
        guard product.isFinite else { return Int.max }
        let events = (product + max(1e-9, product * 1e-12)).rounded(.down)
        return events < 9.0e18 ? Int(events) : Int.max
    }

    /// All events the step tracks: ``rateEvents`` + ``burst`` + ``poison``.
    public var trackedEvents: Int {
        let (partial, overflow1) = rateEvents.addingReportingOverflow(max(0, burst))
        let (total, overflow2) = partial.addingReportingOverflow(max(0, poison))
        return overflow1 || overflow2 ? Int.max : total
    }

    /// The fault plan `collector` runs during this step: this step's plan for it, or its base plan.
    public func faults(for collector: ScenarioCollector) -> ScenarioFaults {
        faults[collector.name] ?? collector.faults
    }

    /// Whether the collector with this name is paused during this step.
    public func isPaused(_ collectorName: String) -> Bool {
        paused.contains(collectorName)
    }

    static let keys = ["name", "seconds", "rate", "offline", "faults", "paused", "burst", "poison", "kill", "retryNow"]

    /// Reads `steps[index]`; `nil` when it is not an object. `collectors` are the names
    /// `faults` and `paused` may refer to.
    init?(json node: ScenarioJSON, index: Int, collectors: [String], decoder: inout ScenarioDecoder) {
        let path = "steps[\(index)]"
        guard let fields = decoder.object(node, path: path, expected: "a step object", known: Self.keys) else {
            return nil
        }
        self.init(name: "step \(index + 1)", seconds: 1)
        name =
            decoder.string(
                fields, "name", expected: "a step name of 1 to \(Self.maxNameLength) characters, no control characters",
                validate: { ScenarioDecoder.nameProblem($0, maxLength: Self.maxNameLength) }) ?? name
        seconds =
            decoder.double(
                fields, "seconds", required: true, range: .init(lower: 0, lowerOpen: true, upper: 86_400),
                expected: "a number of seconds") ?? seconds
        rate =
            decoder.double(
                fields, "rate", range: .init(lower: 0, upper: 100_000), expected: "a number of events per second")
            ?? rate
        offline = decoder.bool(fields, "offline", expected: "true or false") ?? offline
        burst = decoder.integer(fields, "burst", range: 0...1_000_000, expected: "a whole number of events") ?? burst
        poison = decoder.integer(fields, "poison", range: 0...1_000, expected: "a whole number of events") ?? poison
        kill = decoder.bool(fields, "kill", expected: "true or false") ?? kill
        retryNow = decoder.bool(fields, "retryNow", expected: "true or false") ?? retryNow
        if let node = fields["faults"] {
            faults = Self.readFaults(node, path: fields.path("faults"), collectors: collectors, decoder: &decoder)
        }
        if let node = fields["paused"] {
            paused = Self.readPaused(node, path: fields.path("paused"), collectors: collectors, decoder: &decoder)
        }
    }

    /// Reads a `faults` object mapping collector names to fault plans.
    static func readFaults(
        _ node: ScenarioJSON, path: String, collectors: [String], decoder: inout ScenarioDecoder
    ) -> [String: ScenarioFaults] {
        guard case .object(let members) = node.value else {
            decoder.reportFound(node, path, expected: "an object mapping collector names to fault plans")
            return [:]
        }
        var plans: [String: ScenarioFaults] = [:]
        for member in members {
            let memberPath = "\(path).\(member.key)"
            let plan = ScenarioFaults(json: member.value, path: memberPath, decoder: &decoder)
            if decoder.checkReference(
                member.key, line: member.keyLine, column: member.keyColumn, field: memberPath, collectors: collectors)
            {
                plans[member.key] = plan
            }
        }
        return plans
    }

    /// Reads a `paused` array of collector names.
    static func readPaused(
        _ node: ScenarioJSON, path: String, collectors: [String], decoder: inout ScenarioDecoder
    ) -> [String] {
        guard case .array(let elements) = node.value else {
            decoder.reportFound(node, path, expected: "an array of collector names")
            return []
        }
        var names: [String] = []
        for (offset, element) in elements.enumerated() {
            let elementPath = "\(path)[\(offset)]"
            guard case .string(let name) = element.value else {
                decoder.reportFound(element, elementPath, expected: "a collector name")
                continue
            }
            guard !names.contains(name) else {
                decoder.report(element, elementPath, "'\(ScenarioJSONReader.clip(name))' is listed twice")
                continue
            }
            if decoder.checkReference(
                name, line: element.line, column: element.column, field: elementPath, collectors: collectors)
            {
                names.append(name)
            }
        }
        return names
    }
}
