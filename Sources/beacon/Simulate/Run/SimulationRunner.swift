import Beacon
import BeaconSimulation
import BeaconWire
import Foundation
import Logging

/// Runs one scenario: the collectors in this process, the engine as `beacon agent` in a
/// process of its own, the feeder tracking the steps' events, and one loop that applies
/// each step, samples the engine and the collectors every ``sampleInterval``, then lets
/// the queue drain, stops the engine and checks the stores.
struct SimulationRunner {
    let scenario: Scenario
    /// Where the stores and logs go.
    let directory: String
    /// Steps run this many times faster (durations divided, rates multiplied).
    let timeScale: Double
    let logger: Logger
    /// Told of each step as it starts (progress on stderr).
    var progress: @Sendable (String) -> Void = { _ in }
    /// Told of the engine's processes, so that an interrupt stops them.
    var interrupt: SimulationInterrupt?
    /// Whether `beacon monitor` shows the run in this terminal (`--watch`), from the
    /// engine's first start to the end of the drain.
    var watch = false
    /// Told a line a second of the live samples (`--watch` without a terminal).
    var tellLive: (@Sendable (String) -> Void)?

    /// How often the engine and the collectors are sampled.
    static let sampleInterval: Duration = .milliseconds(100)

    /// The engine's store in the run's directory.
    var storePath: String { "\(directory)/engine.sqlite" }

    func run() async throws -> SimulationReport {
        let collectors = try SimulatedCollectors(scenario: scenario, directory: directory, logger: logger)
        return try await collectors.withRunning { ports in
            try await run(collectors: collectors, ports: ports)
        }
    }

    private func run(collectors: SimulatedCollectors, ports: [String: Int]) async throws -> SimulationReport {
        let engine = SimulatedEngine(
            arguments: agentArguments(ports: ports), store: storePath, logPath: "\(directory)/engine.log",
            interrupt: interrupt)
        let simulated = SimulatedEvents(seed: scenario.seed)
        let feeder = EventFeeder(events: simulated)
        let clock = ContinuousClock()
        let started = clock.now
        func elapsed() -> Double { (clock.now - started).inSeconds }
        feeder.start(port: try await engine.start())
        var recorder = SimulationRecorder()
        let live = LiveSamples(directory: directory, stepCount: scenario.steps.count, tell: tellLive)
        var monitor: SimulationWatch?
        let emptied: Bool
        do {
            live.begin(step: 0, name: scenario.steps.first?.name ?? "")
            monitor = watch ? try await SimulationWatch.start(store: storePath, captionFile: "\(directory)/step") : nil
            if let monitor { interrupt?.started(monitor.pid) }
            emptied = try await drive(
                engine: engine, feeder: feeder, collectors: collectors, recorder: &recorder, live: live, elapsed: elapsed)
        } catch {
            // Nothing may outlive the run: the feeder, the monitor and the engine stop.
            _ = await feeder.stop()
            await stop(monitor)
            await engine.stop()
            throw error
        }
        let seconds = elapsed()
        let ledger = await feeder.stop()
        await stop(monitor)
        await engine.stop()
        recorder.settle(counts: ledger.steps)
        try writeIds(ledger)
        for refusal in ledger.refusals { logger.notice("the engine refused a post", metadata: ["answer": "\(refusal)"]) }

        let evidence = try await SimulationEvidence.gather(
            ledger: ledger, collectors: collectors, store: storePath)
        let latencies = try SimulationLatencies.measure(collectors: collectors, ledger: ledger, events: simulated)
        return report(
            recorder: recorder, evidence: evidence, latencies: latencies, seconds: seconds, emptied: emptied,
            restarts: await engine.generation - 1)
    }

    /// The steps, then the drain: whether the queue emptied before the drain timed out.
    private func drive(
        engine: SimulatedEngine, feeder: EventFeeder, collectors: SimulatedCollectors,
        recorder: inout SimulationRecorder, live: LiveSamples, elapsed: () -> Double
    ) async throws -> Bool {
        let clock = ContinuousClock()
        var paused: Set<String> = []
        var wasHealthy = true
        // The scenario was read with the engine's own policy parser: this reading cannot fail.
        let timers = (try? FlushPolicy(parsing: scenario.engine.policy)).map { RealTimeTimers(policy: $0) }

        for (index, step) in scenario.steps.enumerated() {
            let start = elapsed()
            let condition = scenario.condition(of: step)
            progress("step \(index + 1)/\(scenario.steps.count): \(step.name)")
            live.begin(step: index, name: step.name)
            recorder.begin(
                StepReport(
                    name: step.name, start: start, seconds: 0, condition: condition, actions: scenario.actions(of: step),
                    realTimeWarnings: timers?.warnings(for: step, in: scenario, timeScale: timeScale) ?? []))
            if step.kill {
                await feeder.pause()
                recorder.mark("kill -9", at: elapsed())
                recorder.engineRestarted()
                let port = try await engine.killAndRestart()
                feeder.resume(port: port)
            }
            try collectors.apply(step)
            await command(step.offline ? .offline : .online, engine: engine, recorder: &recorder)
            let nowPaused = Set(step.paused)
            for name in nowPaused.subtracting(paused).sorted() { await command(.pause(destination: name), engine: engine, recorder: &recorder) }
            for name in paused.subtracting(nowPaused).sorted() { await command(.resume(destination: name), engine: engine, recorder: &recorder) }
            if step.kill { for name in nowPaused.sorted() { await command(.pause(destination: name), engine: engine, recorder: &recorder) } }
            paused = nowPaused
            if step.retryNow {
                await command(.retryNow(destination: nil), engine: engine, recorder: &recorder)
                recorder.mark("retry now", at: elapsed())
            }
            let healthy = condition == .healthy
            if healthy && !wasHealthy { recorder.recovered(step: index, at: start, date: Date()) }
            wasHealthy = healthy
            let real = Duration.seconds(step.seconds / timeScale)
            let stepStart = clock.now
            if step.burst > 0 {
                feeder.schedule(.init(step: index, stepName: step.name, poison: false, first: stepStart, interval: .zero, count: step.burst))
                recorder.mark("burst \(step.burst)", at: start)
            }
            if step.poison > 0 {
                feeder.schedule(.init(step: index, stepName: step.name, poison: true, first: stepStart, interval: .zero, count: step.poison))
                recorder.mark("poison \(step.poison)", at: start)
            }
            let count = step.rateEvents
            if count > 0 {
                feeder.schedule(.init(step: index, stepName: step.name, poison: false, first: stepStart, interval: real / count, count: count))
            }
            try await sample(until: stepStart + real, engine: engine, collectors: collectors, feeder: feeder, recorder: &recorder, live: live, elapsed: elapsed)
            recorder.end(at: elapsed())
        }

        // The drain: the world heals, nothing new is tracked, the queue empties or the run times out.
        let drainStart = elapsed()
        progress("drain: waiting for the queue to empty (at most \(SimulationFormat.amount(scenario.drainTimeoutSeconds)) s)")
        live.begin(step: nil, name: "drain")
        recorder.begin(StepReport(name: "drain", start: drainStart, seconds: 0, condition: .drain, actions: ["faults cleared, online, resumed, flush"]))
        try collectors.heal()
        await command(.online, engine: engine, recorder: &recorder)
        for name in paused.sorted() { await command(.resume(destination: name), engine: engine, recorder: &recorder) }
        await command(.flush, engine: engine, recorder: &recorder)  // as `beacon ctl flush`: a manual policy drains too
        // The last recovery: the start of the last run of healthy steps after an outage
        // (already being timed), or now, when the last step had an outage or none had one.
        if !wasHealthy || recorder.recoveries.isEmpty {
            recorder.recovered(step: nil, at: drainStart, date: Date())
        }
        let deadline = clock.now + .seconds(scenario.drainTimeoutSeconds)
        var emptied = false
        while clock.now < deadline {
            // The feeder first: once it is idle, a sample that finds the queue empty is the end.
            let fed = feeder.isIdle
            try await sample(until: clock.now + Self.sampleInterval, engine: engine, collectors: collectors, feeder: feeder, recorder: &recorder, live: live, elapsed: elapsed)
            if fed, let status = recorder.lastStatus, status.queue.events == 0,
                status.destinations.allSatisfy({ $0.pending == 0 })
            {
                emptied = true
                break
            }
        }
        recorder.end(at: elapsed())
        return emptied
    }

    /// Sends a step's command to the engine; one it does not apply (no answer in time, or
    /// a refusal) is logged and written into the step's actions, so the report never
    /// claims a step that did not happen.
    private func command(_ command: ControlCommand, engine: SimulatedEngine, recorder: inout SimulationRecorder) async {
        guard await engine.send(command) == nil else { return }
        logger.warning("the engine did not apply a step's command", metadata: ["command": "\(command.name)"])
        recorder.note("\(command.name) NOT applied: the engine did not answer or refused")
    }

    private func stop(_ monitor: SimulationWatch?) async {
        guard let monitor else { return }
        await monitor.stop()
        interrupt?.ended(monitor.pid)
    }

    /// The feeder's ids, one per line, sorted: `tracked.ids`, `in-doubt.ids`, `poison.ids`
    /// (what a test checks the stores against on its own).
    private func writeIds(_ ledger: EventFeeder.Ledger) throws {
        for (name, ids) in [("tracked", ledger.tracked), ("in-doubt", ledger.inDoubt), ("poison", ledger.poison)] {
            let text = ids.sorted().map { $0 + "\n" }.joined()
            try OutputFile.write(Array(text.utf8), to: "\(directory)/\(name).ids")
        }
    }

    /// Samples every ``sampleInterval`` until `end`.
    private func sample(
        until end: ContinuousClock.Instant, engine: SimulatedEngine, collectors: SimulatedCollectors, feeder: EventFeeder,
        recorder: inout SimulationRecorder, live: LiveSamples, elapsed: () -> Double
    ) async throws {
        let clock = ContinuousClock()
        repeat {
            let next = min(end, clock.now + Self.sampleInterval)
            let status = await engine.status()
            let counts = collectors.counts()
            recorder.record(
                .init(
                    time: elapsed(), date: Date(), status: status, stored: counts.stored, duplicates: counts.duplicates,
                    tracked: feeder.trackedCount))
            if let sample = recorder.samples.last { live.record(sample) }
            try await Task.sleep(until: next, clock: clock)
        } while clock.now < end
    }

    /// The agent's command line for this scenario, sending to `ports`.
    func agentArguments(ports: [String: Int]) -> [String] {
        var arguments = [
            "--db", storePath, "--policy", scenario.engine.policy, "--batch-size", "\(scenario.engine.batchSize)",
            "--max-concurrent-requests", "\(scenario.engine.maxConcurrentRequests)",
            "--durability", scenario.engine.durability.rawValue,
        ]
        for collector in scenario.collectors {
            arguments += ["--endpoint", "\(collector.name)=http://127.0.0.1:\(ports[collector.name] ?? 0)"]
        }
        if let maxEvents = scenario.engine.maxEvents { arguments += ["--max-queue-events", "\(maxEvents)"] }
        if let maxBytes = scenario.engine.maxBytes { arguments += ["--max-queue-bytes", "\(maxBytes)"] }
        return arguments
    }
}
