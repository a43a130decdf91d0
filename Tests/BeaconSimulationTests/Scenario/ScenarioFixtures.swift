import Testing

@testable import BeaconSimulation

/// Scenario documents and helpers shared by the scenario tests.
enum ScenarioFixtures {
    /// The example from the format reference, verbatim.
    static let example = """
        {
          "name": "Offline burst on a train",
          "description": "Tracking continues through a tunnel; the backlog drains at the next station.",
          "seed": 7,
          "timeScale": 1,
          "engine": {
            "policy": "count 100 or every 1s",
            "batchSize": 100,
            "maxConcurrentRequests": 1,
            "maxEvents": 50000,
            "maxBytes": 67108864,
            "durability": "process-crash"
          },
          "collectors": [
            { "name": "main" },
            { "name": "warehouse", "faults": { "latencyMilliseconds": 20 } }
          ],
          "steps": [
            { "name": "commute", "seconds": 5, "rate": 200 },
            { "name": "tunnel", "seconds": 10, "rate": 200, "offline": true, "burst": 2000 },
            { "name": "flaky station", "seconds": 5, "rate": 50, "faults": { "main": { "failRate": 0.3, "throttleRate": 0.1, "retryAfterSeconds": 1 } } },
            { "name": "crash", "seconds": 3, "rate": 50, "kill": true },
            { "name": "bad event", "seconds": 2, "rate": 10, "poison": 1 },
            { "name": "maintenance", "seconds": 2, "rate": 10, "paused": ["warehouse"] },
            { "name": "operator", "seconds": 1, "retryNow": true }
          ],
          "drainTimeoutSeconds": 60,
          "expect": { "maxDepth": 6000, "drainedWithinSeconds": 30, "deadLetters": 2, "duplicatesStored": 0, "dropped": 0 }
        }
        """

    /// The smallest valid scenario.
    static let minimal = #"{"name":"t","collectors":[{"name":"main"}],"steps":[{"seconds":1}]}"#

    /// Where a field under test is placed in an otherwise minimal document.
    enum Spot: String, Sendable, CustomStringConvertible {
        case top, engine, collectorFaults, step, stepFaults, expect

        var description: String { rawValue }

        /// The JSON path of `key` at this spot.
        func path(_ key: String) -> String {
            switch self {
            case .top: return key
            case .engine: return "engine.\(key)"
            case .collectorFaults: return "collectors[0].faults.\(key)"
            case .step: return "steps[0].\(key)"
            case .stepFaults: return "steps[0].faults.main.\(key)"
            case .expect: return "expect.\(key)"
            }
        }

        /// A minimal document with `"key": value` (raw JSON) at this spot.
        func document(_ key: String, _ value: String) -> String {
            let pair = "\"\(key)\":\(value)"
            let collectors = #"[{"name":"main"},{"name":"backup"}]"#
            let step = key == "seconds" ? "{\(pair)}" : #"{"seconds":1,\#(pair)}"#
            switch self {
            case .top:
                return #"{"name":"t","collectors":\#(collectors),"steps":[{"seconds":1}],\#(pair)}"#
            case .engine:
                return #"{"name":"t","collectors":\#(collectors),"steps":[{"seconds":1}],"engine":{\#(pair)}}"#
            case .collectorFaults:
                return #"{"name":"t","collectors":[{"name":"main","faults":{\#(pair)}}],"steps":[{"seconds":1}]}"#
            case .step:
                return #"{"name":"t","collectors":\#(collectors),"steps":[\#(step)]}"#
            case .stepFaults:
                return #"{"name":"t","collectors":\#(collectors),"steps":[{"seconds":1,"faults":{"main":{\#(pair)}}}]}"#
            case .expect:
                return #"{"name":"t","collectors":\#(collectors),"steps":[{"seconds":1}],"expect":{\#(pair)}}"#
            }
        }
    }

    /// Parses UTF-8 text.
    static func parse(_ text: String) throws(ScenarioError) -> Scenario {
        try Scenario.parse(Array(text.utf8))
    }

    /// The error parsing `bytes` throws, or `nil` when it parses.
    static func error(_ bytes: [UInt8]) -> ScenarioError? {
        do {
            _ = try Scenario.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// The error parsing `text` throws, or `nil` when it parses.
    static func error(_ text: String) -> ScenarioError? {
        error(Array(text.utf8))
    }

    /// Reads JSON with the scenario reader.
    static func json(_ text: String) throws(ScenarioError) -> ScenarioJSON {
        try ScenarioJSONReader.read(Array(text.utf8))
    }
}
