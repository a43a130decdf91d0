import Beacon
import BeaconSimulation

/// The checks of a scenario that need the engine's own rules (the file format checks the
/// rest): run before anything starts, so a bad scenario exits 2 at once.
enum SimulationPreflight {
    /// The first problem, in words naming the field; `nil` when there is none.
    static func problem(in scenario: Scenario) -> String? {
        do {
            _ = try FlushPolicy(parsing: scenario.engine.policy)
        } catch {
            return "engine.policy: \(error)"
        }
        if let maxBytes = scenario.engine.maxBytes, !QueueBoundsOptions.bytes.contains(maxBytes) {
            return "engine.maxBytes is \(maxBytes); the engine takes \(QueueBoundsOptions.bytes.lowerBound)...\(QueueBoundsOptions.bytes.upperBound)"
        }
        if let maxEvents = scenario.engine.maxEvents, !QueueBoundsOptions.events.contains(maxEvents) {
            return "engine.maxEvents is \(maxEvents); the engine takes \(QueueBoundsOptions.events.lowerBound)...\(QueueBoundsOptions.events.upperBound)"
        }
        return nil
    }
}
