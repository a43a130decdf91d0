import BeaconCollector
import BeaconSimulation
import Foundation
import Logging
import ServiceLifecycle

/// The run's collectors, one per destination, in this process: each stores to an SQLite
/// file of the run's directory and takes the fault plan each step gives it.
struct SimulatedCollectors: Sendable {
    /// One collector and its scenario name.
    struct Member: Sendable {
        var name: String
        var collector: Collector
        var databasePath: String
        var spec: ScenarioCollector
    }

    let members: [Member]
    let logger: Logger

    /// Prepares a collector for each of the scenario's, storing under `directory`, its
    /// fault draws seeded from the scenario's seed.
    init(scenario: Scenario, directory: String, logger: Logger) throws {
        var members: [Member] = []
        for (index, spec) in scenario.collectors.enumerated() {
            let path = "\(directory)/collector-\(spec.name).sqlite"
            var configuration = CollectorConfiguration(
                port: 0, databasePath: path, faultPlan: FaultPlan(scenario: spec.faults),
                seed: scenario.seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
            configuration.limits.maxEventBytes = SimulatedEvents.collectorMaxEventBytes
            configuration.servesFaultAdmin = false
            var collectorLogger = logger
            collectorLogger[metadataKey: "collector"] = "\(spec.name)"
            let collector = try Collector(configuration: configuration, logger: collectorLogger)
            members.append(Member(name: spec.name, collector: collector, databasePath: path, spec: spec))
        }
        self.members = members
        self.logger = logger
    }

    /// Serves every collector for the duration of `body`, which gets their ports by name,
    /// then shuts them down gracefully (requests in flight finish, hanging ones are released).
    func withRunning<Value: Sendable>(_ body: @Sendable ([String: Int]) async throws -> Value) async throws -> Value {
        let group = ServiceGroup(
            services: members.map(\.collector), gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let value: Value
            do {
                var ports: [String: Int] = [:]
                for member in members { ports[member.name] = try await member.collector.port }
                value = try await body(ports)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return value
        }
    }

    /// Puts each collector under the plan `step` gives it, or its base plan.
    func apply(_ step: ScenarioStep) throws {
        for member in members {
            try member.collector.setFaultPlan(FaultPlan(scenario: step.faults(for: member.spec)))
        }
    }

    /// Every collector back to no faults: the drain after the steps.
    func heal() throws {
        for member in members { try member.collector.setFaultPlan(.none) }
    }

    /// Events stored, redeliveries recognised and requests answered, summed over collectors.
    func counts() -> (stored: Int, duplicates: Int, requests: Int) {
        members.reduce((0, 0, 0)) { sum, member in
            let stats = member.collector.stats()
            return (sum.0 + stats.stored, sum.1 + stats.duplicates, sum.2 + stats.requests)
        }
    }
}

extension FaultPlan {
    /// The collector's plan for a scenario's faults.
    init(scenario faults: ScenarioFaults) {
        self.init(
            failRate: faults.failRate, throttleRate: faults.throttleRate, retryAfterSeconds: faults.retryAfterSeconds,
            latencyMilliseconds: faults.latencyMilliseconds, hangRate: faults.hangRate, hangSeconds: faults.hangSeconds,
            resetRate: faults.resetRate, maxBatchEvents: faults.maxBatchEvents, down: faults.down)
    }
}
