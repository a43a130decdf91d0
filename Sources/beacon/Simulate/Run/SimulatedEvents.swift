import BeaconWire

/// The events a scenario tracks: each a pure function of the seed and its serial number, so
/// two runs with one seed send the same events whatever the timing.
struct SimulatedEvents: Sendable {
    /// The collectors' largest event in a simulation: smaller than the engine's, so a
    /// poison event passes `track` and the engine's ingest and is refused by the
    /// collectors, as when a destination's limit is smaller than the SDK's.
    static let collectorMaxEventBytes = 8 * 1024
    /// Padding that puts a poison event past ``collectorMaxEventBytes``.
    static let poisonPadding = String(repeating: "x", count: 9 * 1024)
    static let names = ["Screen Viewed", "Button Tapped", "Item Added", "Checkout Started", "Search Performed"]
    static let plans = ["free", "pro", "team"]

    let seed: UInt64

    /// The `messageId` of event `serial`.
    func messageId(_ serial: Int) -> String {
        "sim-\(String(seed, radix: 16))-\(serial)"
    }

    /// The serial of a `messageId` this run made (`nil` for any other).
    func serial(of messageId: String) -> Int? {
        let prefix = "sim-\(String(seed, radix: 16))-"
        guard messageId.hasPrefix(prefix) else { return nil }
        return Int(messageId.dropFirst(prefix.count))
    }

    /// Event `serial` of step `stepName`, as the JSON the engine's ingest takes.
    func event(_ serial: Int, step: Int, stepName: String, poison: Bool) -> JSONValue {
        var draws = SeededGenerator(seed: seed ^ (UInt64(truncatingIfNeeded: serial) &* 0x9E37_79B9_7F4A_7C15))
        let name = poison ? "Oversized Upload" : Self.names[Int(draws.next() % UInt64(Self.names.count))]
        var properties: [String: JSONValue] = [
            "step": .string(stepName), "stepIndex": .int(step), "serial": .int(serial),
            "plan": .string(Self.plans[Int(draws.next() % UInt64(Self.plans.count))]),
            "value": .int(Int(draws.next() % 10_000)),
        ]
        if poison { properties["blob"] = .string(Self.poisonPadding) }
        return .object([
            "type": "track", "event": .string(name), "messageId": .string(messageId(serial)),
            "anonymousId": .string("user-\(draws.next() % 500)"), "properties": .object(properties),
            "timestamp": .string(Timestamp.now().iso8601),
        ])
    }
}
