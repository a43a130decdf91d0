import Beacon
import BeaconWire
import Foundation

/// `beacon bench idle`: what the console costs while nothing happens. Ten idle stores on
/// one screen (`beacon monitor --dir`, no engine serving them) against one idle store's
/// dashboard (`beacon monitor --db`), each a child process on a pseudo-terminal of 80×24,
/// its CPU time (every thread, from its CPU-time clock) over a window after it has
/// settled. The target: under 1 % of a core for the ten.
struct ConsoleIdleBenchmark {
    var directory: String
    var stores = 10
    var runs = 5
    /// How long each dashboard is measured.
    var window = Duration.seconds(10)
    /// How long each dashboard runs before it is measured (its first reads and paint).
    var settle = Duration.seconds(2)

    /// The fleet's figure, against the single dashboard's.
    func run(progress: (String) -> Void) async throws -> BenchFigure {
        let folder = directory + "/idle-fleet"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: folder) } catch { progress("idle: could not remove \(folder): \(error)") }
        }
        progress("idle: making \(stores) stores of 10 events each...")
        for index in 0..<stores {
            let queue = try SQLiteEventQueue(path: "\(folder)/store-\(index).sqlite")
            let tracker = Tracker(queue: queue)
            for _ in 0..<10 { try tracker.track("Benchmark Event", properties: EnqueueBenchmark.properties) }
            await queue.waitForPendingWrites()
            _ = await queue.close()
        }
        var fleet: [Double] = []
        var single: [Double] = []
        for run in 1...runs {
            progress("idle: run \(run) of \(runs) (\(window.inMilliseconds / 500) s)")
            single.append(try measure(["monitor", "--db", "\(folder)/store-0.sqlite"]))
            fleet.append(try measure(["monitor", "--dir", folder]))
        }
        var figure = BenchFigure(
            benchmark: "idle", figure: "the console's CPU with \(stores) idle stores on one screen (monitor --dir)",
            unit: "% of a core", values: fleet, baseline: "one idle store's dashboard (monitor --db)",
            baselineValues: single, target: .valueBelow(1.0))
        figure.details = ["stores": .int(stores), "windowSeconds": .double(window.inSeconds), "terminal": .string("80x24")]
        return figure
    }

    /// Runs `beacon ARGUMENTS` on a terminal: its CPU over the window, in percent of a core.
    private func measure(_ arguments: [String]) throws -> Double {
        let terminal = try PseudoTerminal()
        let child = try BenchChild(executable: BenchChild.currentExecutable, arguments: arguments, terminal: terminal)
        defer {
            terminal.type("q")
            terminal.discardOutput(for: .milliseconds(200))
            if child.wait(timeout: .seconds(5)) == nil { child.stop() }
        }
        terminal.discardOutput(for: settle)
        guard child.wait(timeout: .zero) == nil, let before = child.preciseCPUSeconds else {
            throw CLIError.runtime("bench: beacon \(arguments.joined(separator: " ")) exited at start")
        }
        let started = ContinuousClock.now
        terminal.discardOutput(for: window)
        guard let after = child.preciseCPUSeconds else {
            throw CLIError.runtime("bench: beacon \(arguments.joined(separator: " ")) exited while measured")
        }
        let elapsed = started.duration(to: .now).inSeconds
        return elapsed > 0 ? (after - before) / elapsed * 100 : 0
    }
}
