import BeaconSimulation
import Testing

/// The invariants against hand-made evidence: each one holds on a clean run and fails on
/// the fault it names.
@Suite struct InvariantCheckTests {
    static func evidence(
        tracked: Set<String> = ["a", "b", "c"], inDoubt: Set<String> = [], poison: Set<String> = [],
        stored: [String: Int] = ["a": 1, "b": 1, "c": 1], dead: [String: String] = [:], pending: Int = 0,
        dropped: Int = 0
    ) -> SimulationEvidence {
        SimulationEvidence(
            tracked: tracked, inDoubt: inDoubt, poison: poison,
            destinations: [
                .init(name: "main", stored: stored, deadLettered: dead, pending: pending, dropped: dropped, duplicatesSent: 0)
            ])
    }

    static func failed(_ evidence: SimulationEvidence) -> [String] {
        InvariantCheck.check(evidence).filter { !$0.holds }.map(\.name)
    }

    @Test func aCleanRunHoldsEveryInvariant() {
        let checks = InvariantCheck.check(Self.evidence())
        #expect(checks.map(\.name) == ["stored-once:main", "nothing-unknown:main", "accounted-for:main", "reasons:main"])
        #expect(checks.allSatisfy { $0.holds })
    }

    @Test func anEventStoredTwiceFails() {
        #expect(Self.failed(Self.evidence(stored: ["a": 2, "b": 1, "c": 1])) == ["stored-once:main"])
    }

    @Test func anEventNeverTrackedFails() {
        #expect(Self.failed(Self.evidence(stored: ["a": 1, "b": 1, "c": 1, "x": 1])) == ["nothing-unknown:main"])
        #expect(Self.failed(Self.evidence(dead: ["y": "HTTP 400"])).contains("nothing-unknown:main"))
    }

    @Test func anInDoubtEventMayBeStoredOrNot() {
        #expect(Self.failed(Self.evidence(inDoubt: ["x"], stored: ["a": 1, "b": 1, "c": 1, "x": 1])).isEmpty)
        #expect(Self.failed(Self.evidence(inDoubt: ["x"])).isEmpty)
    }

    @Test func aLostEventFailsUnlessTheOverflowPolicyCountedIt() {
        let lost = Self.evidence(stored: ["a": 1, "b": 1])
        #expect(Self.failed(lost) == ["accounted-for:main"])
        #expect(Self.failed(Self.evidence(stored: ["a": 1, "b": 1], dropped: 1)).isEmpty)
        // Dropped counts must match exactly: one more drop than missing events is a lie.
        #expect(Self.failed(Self.evidence(dropped: 1)) == ["accounted-for:main"])
    }

    @Test func eventsLeftQueuedFail() {
        #expect(Self.failed(Self.evidence(pending: 2)) == ["accounted-for:main"])
    }

    @Test func anEventBothStoredAndDeadLetteredFails() {
        #expect(Self.failed(Self.evidence(dead: ["a": "HTTP 400"])) == ["accounted-for:main"])
    }

    @Test func deadLettersNeedReasonsAndPoisonMustNotBeStored() {
        let silent = Self.evidence(stored: ["a": 1, "b": 1], dead: ["c": ""])
        #expect(Self.failed(silent) == ["reasons:main"])
        let poisonStored = Self.evidence(poison: ["c"])
        #expect(Self.failed(poisonStored) == ["reasons:main"])
        let poisonHeld = Self.evidence(poison: ["c"], stored: ["a": 1, "b": 1], dead: ["c": "HTTP 400: too large"])
        #expect(Self.failed(poisonHeld).isEmpty)
    }

    @Test func eachDestinationIsCheckedOnItsOwn() {
        var evidence = Self.evidence()
        evidence.destinations.append(
            .init(name: "warehouse", stored: ["a": 1], deadLettered: [:], pending: 0, dropped: 0, duplicatesSent: 3))
        #expect(Self.failed(evidence) == ["accounted-for:warehouse"])
    }
}
