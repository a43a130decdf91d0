import Foundation

/// A scripted run of `beacon simulate FILE`: an engine, its embedded collectors, a timeline of
/// steps, and what is expected at the end.
///
/// A scenario file is a JSON object (see `Assets/scenarios/FORMAT.md`); ``parse(_:)`` reads
/// one with strict checks and errors that name the line, column and field.
/// Time: steps run `timeScale` times faster than written, so in wall time each step's
/// `seconds` are divided by `timeScale` and its `rate` multiplied by it; the number of events
/// is the same at any scale. Counts and durations in ``ScenarioExpectations`` and
/// ``drainTimeoutSeconds`` are in scenario time too.
public struct Scenario: Sendable, Hashable {
    /// The scenario's name, 1...200 characters, no control characters (required).
    public var name: String
    /// A longer description, at most 2,000 characters (optional).
    public var description: String?
    /// Seeds every random draw of the run (fault draws, event contents), 0...UInt64.max (default 1).
    public var seed: UInt64
    /// How many times faster than written the steps run, 1...1,000 (default 1).
    public var timeScale: Double
    /// The engine's settings (default ``ScenarioEngine/init(policy:batchSize:maxConcurrentRequests:maxEvents:maxBytes:durability:)``'s defaults).
    public var engine: ScenarioEngine
    /// The embedded collectors, one per destination of the engine: 1...8, names unique (required).
    public var collectors: [ScenarioCollector]
    /// The timeline, run in order: 1...200 steps lasting at most 7 days in all (required).
    public var steps: [ScenarioStep]
    /// After the last step, how long the runner waits for the queue to drain before it gives
    /// up, 1...86,400 seconds of scenario time (default 120).
    public var drainTimeoutSeconds: Double
    /// What is checked at the end (default: nothing beyond the runner's invariants).
    public var expect: ScenarioExpectations
    /// Engine settings to compare, each combination run on its own (default: none, one run
    /// of ``engine``).
    public var matrix: ScenarioMatrix

    /// Creates a scenario.
    public init(
        name: String, description: String? = nil, seed: UInt64 = 1, timeScale: Double = 1,
        engine: ScenarioEngine = ScenarioEngine(), collectors: [ScenarioCollector], steps: [ScenarioStep],
        drainTimeoutSeconds: Double = 120, expect: ScenarioExpectations = ScenarioExpectations(),
        matrix: ScenarioMatrix = ScenarioMatrix()
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.timeScale = timeScale
        self.engine = engine
        self.collectors = collectors
        self.steps = steps
        self.drainTimeoutSeconds = drainTimeoutSeconds
        self.expect = expect
        self.matrix = matrix
    }

    /// The variants to run: every combination of ``matrix`` made on ``engine``.
    public var variants: [ScenarioVariant] { matrix.variants(of: engine) }

    /// The seeds of `count` repeats of each variant: the scenario's own first, then seeds
    /// derived from it (a SplitMix64 step each), the same for every variant so that each
    /// repeat compares the variants on the same events and fault draws.
    public func repeatSeeds(_ count: Int) -> [UInt64] {
        (0..<max(1, count)).map { index in
            guard index > 0 else { return seed }
            var mixed = seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    /// The largest scenario file accepted, in bytes (1 MiB).
    public static let maxFileBytes = ScenarioJSONReader.maxBytes
    /// The most events a scenario may track in all (``trackedEvents``).
    public static let maxTrackedEvents = 10_000_000
    /// The longest timeline, in seconds of scenario time (7 days).
    public static let maxDurationSeconds: Double = 604_800

    /// How many events the steps track in all: each step's `rate × seconds` rounded down, plus
    /// its bursts and poison events (see ``ScenarioStep/trackedEvents``).
    public var trackedEvents: Int {
        steps.reduce(0) { total, step in
            let (sum, overflow) = total.addingReportingOverflow(step.trackedEvents)
            return overflow ? Int.max : sum
        }
    }

    /// The timeline's length in scenario time: the sum of the steps' seconds.
    public var duration: Double { steps.reduce(0) { $0 + $1.seconds } }

    /// The timeline's length in wall time: ``duration`` divided by ``timeScale``.
    public var wallDuration: Double { duration / timeScale }

    /// Reads a scenario from the bytes of a UTF-8 JSON file.
    ///
    /// Throws the error earliest in the document: a syntax error, a field of the wrong type,
    /// out of range, unknown or missing, or a broken cross-check (unknown collector, shares over
    /// 1, too many events, too long a timeline).
    ///
    /// - Parameters:
    ///   - checkPolicy: the engine's reading of `engine.policy` (a problem in words, or
    ///     `nil`), so that a policy it cannot read is an error with its line.
    ///   - concurrencyRange: the requests in flight the engine takes, so that a value it
    ///     refuses is an error with its line rather than an engine that does not start.
    public static func parse(
        _ bytes: [UInt8], checkPolicy: (@Sendable (String) -> String?)? = nil,
        concurrencyRange: ClosedRange<Int> = ScenarioEngine.maxConcurrentRequestsRange
    ) throws(ScenarioError) -> Scenario {
        let root = try ScenarioJSONReader.read(bytes)
        var decoder = ScenarioDecoder()
        decoder.checkPolicy = checkPolicy
        decoder.concurrencyRange = concurrencyRange
        let scenario = Scenario(json: root, decoder: &decoder)
        if let error = decoder.firstError { throw error }
        return scenario
    }

    /// Reads the scenario file at `path`. A missing or unreadable file throws an error with
    /// line 0 that says why.
    public static func load(
        path: String, checkPolicy: (@Sendable (String) -> String?)? = nil,
        concurrencyRange: ClosedRange<Int> = ScenarioEngine.maxConcurrentRequestsRange
    ) throws(ScenarioError) -> Scenario {
        try parse(readFile(path: path), checkPolicy: checkPolicy, concurrencyRange: concurrencyRange)
    }

    /// The first bytes of a file, at most one more than ``maxFileBytes`` (enough for `parse`
    /// to refuse it).
    static func readFile(path: String) throws(ScenarioError) -> [UInt8] {
        func failure(_ reason: String) -> ScenarioError {
            ScenarioError(line: 0, column: 0, field: "", message: "cannot read the scenario file: \(reason)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure("no such file")
        }
        guard !isDirectory.boolValue else { throw failure("it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw failure("it cannot be opened (permission denied?)")
        }
        defer { try? handle.close() }  // read-only: a failed close loses nothing
        do {
            return [UInt8](try handle.read(upToCount: maxFileBytes + 1) ?? Data())
        } catch {
            throw failure(error.localizedDescription)
        }
    }
}

extension Scenario {
    static let keys = [
        "name", "description", "seed", "timeScale", "engine", "collectors", "steps", "drainTimeoutSeconds", "expect",
        "matrix",
    ]

    /// Reads the top-level object; errors go to `decoder`, and fields in error keep defaults.
    init(json root: ScenarioJSON, decoder: inout ScenarioDecoder) {
        self.init(name: "", collectors: [], steps: [])
        guard
            let fields = decoder.object(
                root, path: "", expected: "a scenario object with name, collectors and steps", known: Self.keys)
        else { return }
        name =
            decoder.string(
                fields, "name", required: true, expected: "a name of 1 to 200 characters, no control characters",
                validate: { ScenarioDecoder.nameProblem($0, maxLength: 200) }) ?? name
        description = decoder.string(
            fields, "description", expected: "a text of at most 2000 characters",
            validate: { $0.count > 2_000 ? "found \($0.count) characters" : nil })
        seed = decoder.unsigned(fields, "seed", expected: "a whole number") ?? seed
        timeScale =
            decoder.double(fields, "timeScale", range: .init(lower: 1, upper: 1_000), expected: "a speed-up factor")
            ?? timeScale
        if let node = fields["engine"] {
            engine = ScenarioEngine(json: node, path: "engine", decoder: &decoder)
        }
        collectors = Self.readCollectors(fields, decoder: &decoder)
        let names = collectors.map(\.name).filter { !$0.isEmpty }
        let stepNodes = decoder.array(fields, "steps", required: true, counts: 1...200, expected: "an array of steps") ?? []
        var stepsRead: [(ScenarioStep, ScenarioJSON)] = []
        for (index, node) in stepNodes.enumerated() {
            if let step = ScenarioStep(json: node, index: index, collectors: names, decoder: &decoder) {
                stepsRead.append((step, node))
            }
        }
        steps = stepsRead.map(\.0)
        drainTimeoutSeconds =
            decoder.double(
                fields, "drainTimeoutSeconds", range: .init(lower: 1, upper: 86_400), expected: "a number of seconds")
            ?? drainTimeoutSeconds
        if let node = fields["expect"] {
            expect = ScenarioExpectations(json: node, path: "expect", collectors: names, decoder: &decoder)
        }
        if let node = fields["matrix"] {
            matrix = ScenarioMatrix(json: node, decoder: &decoder)
        }
        if decoder.errors.isEmpty {
            Self.checkTotals(stepsRead, decoder: &decoder)
        }
    }

    /// Reads `collectors`, reporting repeated names at the repeat.
    static func readCollectors(_ fields: ScenarioDecoder.Fields, decoder: inout ScenarioDecoder) -> [ScenarioCollector] {
        let nodes =
            decoder.array(fields, "collectors", required: true, counts: 1...8, expected: "an array of collectors") ?? []
        var collectors: [ScenarioCollector] = []
        for (index, node) in nodes.enumerated() {
            guard let collector = ScenarioCollector(json: node, path: "collectors[\(index)]", decoder: &decoder) else {
                continue
            }
            if !collector.name.isEmpty, let first = collectors.firstIndex(where: { $0.name == collector.name }),
                let nameNode = node.member("name")?.value
            {
                decoder.report(
                    nameNode, "collectors[\(index)].name",
                    "collector name '\(collector.name)' is already used by collectors[\(first)]")
                continue
            }
            collectors.append(collector)
        }
        return collectors
    }

    /// Checks the whole timeline: at most ``maxTrackedEvents`` events and ``maxDurationSeconds``
    /// seconds, reported at the step where the total goes over.
    static func checkTotals(_ steps: [(ScenarioStep, ScenarioJSON)], decoder: inout ScenarioDecoder) {
        var events = 0
        var seconds = 0.0
        for (index, (step, node)) in steps.enumerated() {
            let (sum, overflow) = events.addingReportingOverflow(step.trackedEvents)
            events = overflow ? Int.max : sum
            if events > maxTrackedEvents {
                decoder.report(
                    node, "steps[\(index)]",
                    "the steps track \(events) events by the end of this one (rate × seconds + burst + poison); a scenario may track at most \(maxTrackedEvents)"
                )
                return
            }
            seconds += step.seconds
            if seconds > maxDurationSeconds {
                let secondsNode = node.member("seconds")?.value ?? node
                decoder.report(
                    secondsNode, "steps[\(index)].seconds",
                    "the timeline lasts \(ScenarioDecoder.format(seconds)) seconds by the end of this step; it may last at most \(ScenarioDecoder.format(maxDurationSeconds)) seconds (7 days)"
                )
                return
            }
        }
    }
}
