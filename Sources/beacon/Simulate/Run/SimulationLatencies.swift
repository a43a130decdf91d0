import BeaconSimulation
import GRDB

/// Track-to-stored latency per destination: for every tracked event a collector stored,
/// its arrival at the collector (`received_at` in the collector's store) less the moment
/// the engine acknowledged its post (the feeder's ledger). One clock: all in this machine.
enum SimulationLatencies {
    /// The latency percentiles of each collector's stored events.
    static func measure(collectors: SimulatedCollectors, ledger: EventFeeder.Ledger, events: SimulatedEvents) throws
        -> [String: SimulationLatency]
    {
        var latencies: [String: SimulationLatency] = [:]
        var configuration = Configuration()
        configuration.readonly = true
        for member in collectors.members {
            let store = try DatabaseQueue(path: member.databasePath, configuration: configuration)
            var seconds: [Double] = []
            try store.read { db in
                let rows = try Row.fetchCursor(db, sql: "SELECT message_id, received_at FROM collector_events")
                while let row = try rows.next() {
                    let id: String = row[0]
                    let arrived: Int64 = row[1]
                    guard ledger.tracked.contains(id), let serial = events.serial(of: id),
                        let acknowledged = ledger.acknowledged(serial: serial)
                    else { continue }
                    // A row read back from a store: a corrupt time is skipped, never a trap.
                    let (difference, overflow) = arrived.subtractingReportingOverflow(acknowledged)
                    guard !overflow else { continue }
                    seconds.append(Double(difference) / 1_000)
                }
            }
            try store.close()
            latencies[member.name] = SimulationLatency(seconds: seconds)
        }
        return latencies
    }
}
