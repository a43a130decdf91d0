import ArgumentParser
import Beacon
import BeaconSimulation
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `beacon simulate FILE`: a scripted scenario run headless, checked and reported.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario: an engine, collectors and a timeline of outages and faults; check nothing was lost.",
        discussion: """
            FILE is a JSON scenario (the format: Assets/scenarios/FORMAT.md; examples beside it). \
            The engine runs as 'beacon agent' in a process of its own over a store in the run's \
            directory, sending to one collector per destination in this process; the steps cut \
            the network, inject collector faults, pause destinations, send bursts and poison \
            events, and kill -9 the engine and start it again. After the steps the faults clear, \
            the engine is asked to flush, and the queue drains. Then every event tracked must be \
            stored at each collector once, or dead-lettered with a reason, or dropped by the \
            overflow policy (events the engine refused are counted as refused), and the \
            scenario's expectations must hold. The run's files (stores, engine log, tracked ids, \
            report.json) stay in --dir. Prints a report (--json: as JSON) with a chart; \
            exit 0 when all checks hold, 1 with the failed ones listed, 2 for a bad file. \
            Same seed, same events and the same fault draws: counts that timing does not decide \
            repeat from run to run. To compare engine settings, give the scenario a \
            "matrix" (FORMAT.md) or --set, and --repeat N: every variant runs N times on the \
            same seeds, and a table compares them (drain, events stored per second while \
            draining, p99 latency from track to stored, requests and bytes per event, max \
            depth), medians with their range, naming the best variant of each figure when its \
            range is beyond every other's; each run's files and \
            chart are in DIR/variant-V-run-R, the comparison in DIR/comparison.json. The report \
            has a line per destination: stored, dead letters, most pending, drain and latency.
            """)

    @Argument(help: "The scenario file (JSON).")
    var file: String

    @Flag(help: "Print the report as JSON (with the timeline) instead of text.")
    var json = false

    @Option(help: "Write the chart of depth and rates over time as an SVG file.")
    var chart: String?

    @Option(help: "Write the checks as JUnit XML to this file, for a CI system: a test suite per run, a test case per invariant and expectation.")
    var junit: String?

    @Flag(
        help: ArgumentHelp(
            "Show the run as it happens: on a terminal, the dashboard ('beacon monitor' on the run's store) with the running step in its title; without one, a line a second on stderr.",
            discussion: "Either way each sample is written as it is taken to DIR/samples.jsonl, and the running step to DIR/step."))
    var watch = false

    @Option(
        name: .customLong("time-scale"), parsing: .unconditional,
        help: "Run the steps this many times faster (1...1000; overrides the file's timeScale). The engine's flush interval, backoff and Retry-After still run in real time; the report says per step where they dominate.")
    var timeScale: Double?

    @Option(parsing: .unconditional, help: "The seed (overrides the file's).")
    var seed: UInt64?

    @Option(help: "Keep the run's stores, logs and ids in this directory (new or empty). By default a temporary one, removed after a pass and kept after a failure.")
    var dir: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Override one engine setting, engine.KEY=VALUE (repeatable), such as engine.batchSize=500 or 'engine.policy=every 2s'.",
            discussion: "A key the scenario's matrix varies is pinned to this value."))
    var assignments: [String] = []

    @Option(name: .customLong("repeat"), parsing: .unconditional, help: "Run each variant this many times (1...20), on seeds derived from the scenario's.")
    var repeatCount = 1

    @Option(help: "Log level of this process's collectors (a warning per injected fault): trace, debug, info, notice, warning, error, critical.")
    var logLevel = "error"

    static let timeScales = 1.0...1000.0

    static let repeats = 1...20

    func validate() throws {
        guard Self.repeats.contains(repeatCount) else { throw ValidationError("--repeat must be 1...20, not \(repeatCount)") }
        if let timeScale, !Self.timeScales.contains(timeScale) {
            throw ValidationError("--time-scale must be 1...1000, not \(timeScale)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("Unknown --log-level '\(logLevel)'; use trace, debug, info, notice, warning, error or critical.")
        }
        // Checked before the run, so a typo does not cost the run its chart or its JUnit file.
        if let chart { try Self.checkOutputFile(chart, flag: "--chart", example: "run.svg") }
        if let junit { try Self.checkOutputFile(junit, flag: "--junit", example: "simulate.xml") }
    }

    /// A file to write after the run: its folder exists, and it is not a folder itself.
    static func checkOutputFile(_ path: String, flag: String, example: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(flag) \(path): the folder \(folder) does not exist")
        }
        var isFolder: ObjCBool = false
        let existingFolder = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        guard !path.hasSuffix("/"), !existingFolder else {
            throw ValidationError("\(flag) \(path) names a folder; give a file, such as \(example)")
        }
    }

    /// The engine's own reading of a flush policy, for the scenario reader.
    static let checkPolicy: @Sendable (String) -> String? = { text in
        do {
            _ = try FlushPolicy(parsing: text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    func run() async throws {
        var scenario: Scenario
        do {
            scenario = try Scenario.load(
                path: file, checkPolicy: Self.checkPolicy, concurrencyRange: Destination.maxConcurrentRequestsRange)
        } catch {
            throw CLIError.badInput(error.described(file: file))
        }
        for assignment in assignments {
            let setting: ScenarioEngineSetting
            do {
                setting = try ScenarioEngineSetting.parse(
                    assignment: assignment, checkPolicy: Self.checkPolicy, concurrencyRange: Destination.maxConcurrentRequestsRange)
            } catch {
                throw CLIError.badInput("--set \(assignment): \(error)")
            }
            setting.apply(to: &scenario.engine)
            scenario.matrix = scenario.matrix.pinning(setting.key)
        }
        if let seed { scenario.seed = seed }
        let variants = scenario.variants
        if variants.count > 1 || repeatCount > 1 {
            try await SimulationComparisonRun(command: self, scenario: scenario, variants: variants).run()
            return
        }
        scenario.engine = variants.first?.engine ?? scenario.engine
        let directory = try SimulationDirectory.prepare(dir)
        var logger = Logger(label: "beacon.simulate") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .error
        var runner = SimulationRunner(
            scenario: scenario, directory: directory.path, timeScale: timeScale ?? scenario.timeScale, logger: logger)
        let interrupt = SimulationInterrupt(directory: directory.path)
        runner.interrupt = interrupt
        // On a terminal the dashboard has it; without one, --watch tells the samples on stderr.
        let dashboard = watch && isatty(STDOUT_FILENO) != 0 && isatty(STDIN_FILENO) != 0
        runner.watch = dashboard
        let quiet = json || dashboard
        let say: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data("simulate: \(line)\n".utf8)) }
        runner.progress = { line in if !quiet { say(line) } }
        if watch && !dashboard { runner.tellLive = say }
        let report: SimulationReport
        do {
            report = try await runner.run()
        } catch {
            throw CLIError.runtime("the simulation could not run: \(error); its files are in \(directory.path)")
        }
        // The report first: a file that cannot be written afterwards does not hide it.
        // Through `Output`: a report that cannot be written (a full disk) is an exit 1.
        if json {
            Output.raw(try SimulationDirectory.json(report))
        } else {
            Output.raw(report.text)
            Output.raw("")
            for line in SimulationChart.terminal(report.timeline, width: 78, height: 14) { Output.raw(line) }
        }
        try SimulationDirectory.record(report, in: directory.path)
        if let junit {
            try OutputFile.write(Array(SimulationJUnit.xml([.init(name: "\(scenario.name) · seed \(scenario.seed)", report: report)]).utf8), to: junit)
        }
        if let chart {
            let svg = SimulationChart.svg(report.timeline, title: scenario.name)
            try OutputFile.write(Array(svg.utf8), to: chart)
        }
        guard report.passed else {
            throw CLIError.runtime(
                "\(file): \(report.failures.count) checks did not hold: \(report.failures.map(\.name).joined(separator: ", ")); the run's files are in \(directory.path)")
        }
        directory.removeIfTemporary()
    }
}
