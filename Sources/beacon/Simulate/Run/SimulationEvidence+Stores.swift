import Beacon
import BeaconSimulation

extension SimulationEvidence {
    /// Gathers the evidence once the engine has stopped: what the feeder tracked, what
    /// each collector's store holds, and the engine store's dead letters, pending and
    /// dropped counts.
    static func gather(ledger: EventFeeder.Ledger, collectors: SimulatedCollectors, store: String) async throws
        -> SimulationEvidence
    {
        let reader = try StoreReader(path: store)
        let status = try await reader.status(batchLimit: 1, deadLetterLimit: 1)
        var letters: [String: [String: String]] = [:]
        var after: Int64 = 0
        while true {
            let page = try await reader.deadLetters(afterID: after, limit: 500)
            for letter in page { letters[letter.destination, default: [:]][letter.event.messageId] = letter.reason }
            guard let last = page.last else { break }
            after = last.id
        }
        var destinations: [Destination] = []
        for member in collectors.members {
            var stored: [String: Int] = [:]
            for id in try await member.collector.storedMessageIds() { stored[id, default: 0] += 1 }
            let depth = status.destinations[member.name]
            destinations.append(
                Destination(
                    name: member.name, stored: stored, deadLettered: letters[member.name] ?? [:],
                    pending: depth?.pending ?? 0, dropped: depth?.dropped ?? 0,
                    duplicatesSent: member.collector.stats().duplicates))
        }
        return SimulationEvidence(
            tracked: ledger.tracked, inDoubt: ledger.inDoubt, poison: ledger.poison, destinations: destinations)
    }
}
