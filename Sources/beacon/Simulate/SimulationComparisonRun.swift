import BeaconSimulation
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `beacon simulate` with a matrix or `--repeat`: every variant run `--repeat` times on the
/// same seeds, one after another (each is timed against the wall clock: side by side they
/// would slow each other), each in `DIR/variant-V-run-R` with its report and chart; then
/// the comparison, printed and kept in `DIR/comparison.json`.
struct SimulationComparisonRun {
    let command: SimulateCommand
    let scenario: Scenario
    let variants: [ScenarioVariant]

    func run() async throws {
        if command.watch && isatty(STDOUT_FILENO) != 0 && isatty(STDIN_FILENO) != 0 {
            throw CLIError.badInput(
                "--watch shows one run on the dashboard; with \(variants.count) variants × \(command.repeatCount) runs leave it out, or pipe the output (each run's samples are in its directory)")
        }
        if command.chart != nil {
            throw CLIError.badInput("--chart draws one run; with a matrix or --repeat each run's chart is chart.svg in its directory")
        }
        let directory = try SimulationDirectory.prepare(command.dir)
        var logger = Logger(label: "beacon.simulate") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = Logger.Level(rawValue: command.logLevel) ?? .error
        let interrupt = SimulationInterrupt(directory: directory.path)
        let seeds = scenario.repeatSeeds(command.repeatCount)
        let quiet = command.json
        let say: @Sendable (String) -> Void = { line in
            guard !quiet else { return }
            FileHandle.standardError.write(Data("simulate: \(line)\n".utf8))
        }
        var compared: [SimulationComparison.Variant] = []
        var suites: [SimulationJUnit.Run] = []
        for (index, variant) in variants.enumerated() {
            var runs: [SimulationComparison.Run] = []
            for (round, seed) in seeds.enumerated() {
                let label = "variant \(index + 1) of \(variants.count) (\(variant.name)), run \(round + 1) of \(seeds.count)"
                let path = "\(directory.path)/variant-\(index + 1)-run-\(round + 1)"
                do {
                    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                } catch {
                    throw CLIError.runtime("cannot make \(path) for a run: \(error.localizedDescription)")
                }
                var one = scenario
                one.engine = variant.engine
                one.seed = seed
                one.matrix = ScenarioMatrix()
                var runner = SimulationRunner(
                    scenario: one, directory: path, timeScale: command.timeScale ?? scenario.timeScale, logger: logger)
                runner.interrupt = interrupt
                runner.progress = { line in say("\(label): \(line)") }
                if command.watch { runner.tellLive = { line in say("\(label): \(line)") } }
                let report: SimulationReport
                do {
                    report = try await runner.run()
                } catch {
                    throw CLIError.runtime("the simulation could not run (\(label)): \(error); its files are in \(path)")
                }
                try SimulationDirectory.record(report, in: path)
                try OutputFile.write(Array(SimulationChart.svg(report.timeline, title: "\(scenario.name): \(variant.name)").utf8), to: "\(path)/chart.svg")
                let outcome = report.passed ? "passed" : "FAILED \(report.failures.map(\.name).joined(separator: ", "))"
                say("\(label): \(outcome); drain \(report.drain.seconds.map { SimulationFormat.decimal($0) + " s" } ?? "not reached")")
                runs.append(SimulationComparison.Run(seed: seed, report: report, directory: path))
                suites.append(SimulationJUnit.Run(name: "\(scenario.name) · \(variant.name) · seed \(seed)", report: report))
            }
            compared.append(SimulationComparison.Variant(variant, runs: runs))
        }
        let comparison = SimulationComparison(scenario: scenario.name, variants: compared)
        let json = try SimulationDirectory.json(comparison)
        // The comparison first: a file that cannot be written afterwards does not hide it.
        Output.raw(command.json ? json : comparison.text)
        try OutputFile.write(Array(json.utf8), to: "\(directory.path)/comparison.json")
        if let junit = command.junit { try OutputFile.write(Array(SimulationJUnit.xml(suites).utf8), to: junit) }
        guard comparison.passed else {
            let failed = compared.reduce(0) { $0 + $1.runs.filter { !$0.passed }.count }
            throw CLIError.runtime(
                "\(command.file): \(failed) of \(variants.count * seeds.count) runs did not hold every check; the files are in \(directory.path)")
        }
        directory.removeIfTemporary()
    }
}
