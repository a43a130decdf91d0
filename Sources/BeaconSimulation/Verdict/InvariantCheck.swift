/// The invariants every run is held to, checked against ``SimulationEvidence``. Pure:
/// evidence in, checks out.
///
/// For each destination:
/// - **stored once**: no `messageId` has more than one row at its collector;
/// - **nothing unknown**: every event stored or dead-lettered was tracked (or posted and
///   left in doubt);
/// - **accounted for**: every tracked event is stored or dead-lettered, never both, and
///   the ones that are neither number exactly what the overflow policy dropped; nothing is
///   left queued;
/// - **reasons**: every dead letter says why, and every poison event is dead-lettered.
public enum InvariantCheck {
    /// How many offending ids a check names.
    static let namedIds = 3

    /// Every invariant, per destination, in a fixed order.
    public static func check(_ evidence: SimulationEvidence) -> [SimulationCheck] {
        evidence.destinations.flatMap { check($0, in: evidence) }
    }

    private static func check(_ destination: SimulationEvidence.Destination, in evidence: SimulationEvidence)
        -> [SimulationCheck]
    {
        let name = destination.name
        var checks: [SimulationCheck] = []

        let repeated = destination.stored.filter { $0.value > 1 }.keys.sorted()
        checks.append(
            SimulationCheck(
                name: "stored-once:\(name)", holds: repeated.isEmpty,
                detail: repeated.isEmpty
                    ? "\(SimulationFormat.count(destination.stored.count)) events, each stored once"
                    : "\(repeated.count) events stored more than once, e.g. \(sample(repeated))"))

        let known = evidence.tracked.union(evidence.inDoubt)
        let unknownStored = destination.stored.keys.filter { !known.contains($0) }.sorted()
        let unknownDead = destination.deadLettered.keys.filter { !known.contains($0) }.sorted()
        let unknown = unknownStored + unknownDead
        checks.append(
            SimulationCheck(
                name: "nothing-unknown:\(name)", holds: unknown.isEmpty,
                detail: unknown.isEmpty
                    ? "every event stored or dead-lettered was tracked"
                    : "\(unknownStored.count) stored and \(unknownDead.count) dead-lettered events were never tracked, e.g. \(sample(unknown))"))

        let both = destination.stored.keys.filter { destination.deadLettered[$0] != nil }.sorted()
        let missing = evidence.tracked.filter { destination.stored[$0] == nil && destination.deadLettered[$0] == nil }
            .sorted()
        let accounted = both.isEmpty && missing.count == destination.dropped && destination.pending == 0
        var detail =
            "\(SimulationFormat.count(evidence.tracked.count)) tracked: \(SimulationFormat.count(evidence.tracked.count - missing.count)) stored or dead-lettered, \(SimulationFormat.count(missing.count)) missing, \(SimulationFormat.count(destination.dropped)) dropped by the overflow policy"
        if destination.pending > 0 { detail += "; \(destination.pending) still queued" }
        if !both.isEmpty { detail += "; \(both.count) both stored and dead-lettered, e.g. \(sample(both))" }
        if missing.count != destination.dropped && !missing.isEmpty { detail += "; missing e.g. \(sample(missing))" }
        checks.append(SimulationCheck(name: "accounted-for:\(name)", holds: accounted, detail: detail))

        let silent = destination.deadLettered.filter { $0.value.isEmpty }.keys.sorted()
        let poisonStored = evidence.poison.filter { destination.stored[$0] != nil }.sorted()
        let poisonHeld = evidence.poison.filter { destination.deadLettered[$0] != nil }.count
        var reasons = "dead letters: \(destination.deadLettered.count), each with a reason"
        if !silent.isEmpty { reasons = "\(silent.count) dead letters without a reason, e.g. \(sample(silent))" }
        if !poisonStored.isEmpty { reasons += "; \(poisonStored.count) poison events were stored, e.g. \(sample(poisonStored))" }
        let poisonTaken = evidence.poison.intersection(evidence.tracked).count
        reasons += "; poison events dead-lettered: \(poisonHeld) of \(poisonTaken) tracked"
        let poisonRefused = evidence.poison.count - poisonTaken
        if poisonRefused > 0 { reasons += " (\(poisonRefused) more refused at ingest, never queued)" }
        checks.append(
            SimulationCheck(name: "reasons:\(name)", holds: silent.isEmpty && poisonStored.isEmpty, detail: reasons))
        return checks
    }

    /// The first few ids, for a detail line.
    private static func sample(_ ids: [String]) -> String {
        let shown = ids.prefix(namedIds).joined(separator: ", ")
        return ids.count > namedIds ? shown + ", …" : shown
    }
}
