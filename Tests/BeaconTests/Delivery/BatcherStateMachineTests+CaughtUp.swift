import BeaconTesting
import Testing

@testable import Beacon

/// A drain ends once a read comes back short (it took everything queued then): what is
/// committed meanwhile waits for the flush policy, instead of one small batch per round
/// trip. Not during a split, an isolation or the final drain.
extension BatcherStateMachineTests {
    /// From a drain after 7, reads a batch through 20 (`full` or not), delivers it without
    /// a read-ahead and asks for the next batch.
    func afterADelivery(full: Bool, splitLimit: Int? = nil, finalDrain: Bool = false) -> (Machine, Machine.NextBatchAction) {
        var machine = Self.machine(finalDrain ? Self.idleAfter7 : Self.after7, splitLimit: splitLimit)
        if finalDrain { #expect(machine.finalFlush(isOffline: false) == .finalDrain) }
        #expect(machine.nextBatch(batchSize: 10) == .read(.after(7), limit: splitLimit ?? 10, attempt: 1))
        machine.batchRead(through: 20, full: full)
        _ = machine.sendFinished(.delivered, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        let next = machine.nextBatch(batchSize: 10)
        return (machine, next)
    }

    @Test func aShortReadEndsTheDrainOnceItsBatchIsDelivered() {
        var (machine, next) = afterADelivery(full: false)
        #expect(next == .finishDrain)
        #expect(machine.state == .idle(after: 20), "the next drain starts after the batch")
        #expect(machine.drainCaughtUp, "the batcher asks the policy again at once")
        #expect(machine.drainFinished(now: Self.now) == .reportDestination)
        #expect(!machine.drainCaughtUp)
        #expect(machine.lastReadFull, "the next drain starts afresh")
    }

    @Test func aDrainThatFindsNothingDidNotCatchUp() {
        var machine = Self.machine(Self.after7)
        _ = machine.nextBatch(batchSize: 10)
        #expect(machine.readFoundNothing(now: Self.now, random: 0) == .finishDrain)
        #expect(!machine.drainCaughtUp, "nothing is left for the policy to see")
    }

    @Test func aFullReadGoesOn() {
        let (machine, next) = afterADelivery(full: true)
        #expect(next == .read(.after(20), limit: 10, attempt: 1))
        #expect(machine.state == .reading(resumeAfter: 20, fromHead: false))
    }

    @Test func aSplitOrTheFinalDrainGoesOnAfterAShortRead() {
        let (split, splitNext) = afterADelivery(full: false, splitLimit: 2)
        #expect(splitNext == .read(.after(20), limit: 4, attempt: 1), "the split's batches are short on purpose")
        #expect(split.splitLimit == 4)
        let (final, finalNext) = afterADelivery(full: false, finalDrain: true)
        #expect(finalNext == .read(.after(20), limit: 10, attempt: 1), "the final drain sends everything")
        #expect(final.drainsEverything)
    }

    @Test func aDrainAskedForSendsEverythingThenTheNextOneMayEndEarly() {
        var machine = Self.machine(Self.idleAfter7)
        machine.requestFlush()
        #expect(machine.evaluatePolicy(depth: 3, now: Self.now) == .startDrain(.manual))
        #expect(machine.drainsEverything, "a flush empties the queue")
        _ = machine.nextBatch(batchSize: 10)
        machine.batchRead(through: 20, full: false)
        #expect(!machine.endsAfterThisBatch)
        _ = machine.sendFinished(.delivered, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.nextBatch(batchSize: 10) == .read(.after(20), limit: 10, attempt: 1))
        #expect(machine.readFoundNothing(now: Self.now, random: 0) == .finishDrain)
        _ = machine.drainFinished(now: Self.now)
        #expect(!machine.drainsEverything, "only the drain that was asked for")

        var counted = Self.machine(Self.idleAfter7, policy: .count(3))
        #expect(counted.evaluatePolicy(depth: 3, now: Self.now) == .startDrain(.count))
        #expect(!counted.drainsEverything, "a drain the policy started ends at a short read")
    }

    @Test func theBatchInHandSaysWhetherToReadAhead() {
        var machine = Self.machine(Self.after7)
        _ = machine.nextBatch(batchSize: 10)
        machine.batchRead(through: 20, full: false)
        #expect(machine.endsAfterThisBatch)
        var full = Self.machine(Self.after7)
        _ = full.nextBatch(batchSize: 10)
        _ = full.batchRead(through: 20, full: true)
        #expect(!full.endsAfterThisBatch)
        let streak = Machine.Streak(attempts: 1, since: Self.now, isolatingThrough: 30)
        var isolating = Self.machine(Self.after7, streak: streak)
        _ = isolating.nextBatch(batchSize: 10)
        _ = isolating.batchRead(through: 20, full: false)
        #expect(!isolating.endsAfterThisBatch, "an isolation's batches are short on purpose")
    }

    @Test func aShortReadAheadEndsTheDrainAfterItIsSent() {
        var machine = Self.machine(Self.after7)
        _ = machine.nextBatch(batchSize: 10)
        machine.batchRead(through: 20, full: true)
        let ahead = Machine.ReadAhead(batch: "ahead", through: 23, full: false)
        _ = machine.sendFinished(.delivered, sent: 10, readAhead: ahead, now: Self.now, batchSize: 10)
        #expect(!machine.endsAfterThisBatch, "the batch sent was full")
        #expect(machine.nextBatch(batchSize: 10) == .send("ahead", limit: 10))
        #expect(machine.endsAfterThisBatch, "the batch read ahead was short")
        _ = machine.sendFinished(.delivered, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.nextBatch(batchSize: 10) == .finishDrain)
        #expect(machine.state == .idle(after: 23))
    }

    @Test func aFailedSendAfterAShortReadRetriesFromTheHead() {
        var machine = Self.machine(Self.after7)
        _ = machine.nextBatch(batchSize: 10)
        machine.batchRead(through: 20, full: false)
        _ = machine.sendFinished(.retry(after: .seconds(1), reason: "HTTP 503"), sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        #expect(machine.state == .backingOff(until: Self.at(11)))
        #expect(machine.wake(now: Self.at(11), settings: Self.online, wentOffline: false) == .drain(reporting: nil))
        #expect(machine.nextBatch(batchSize: 10) == .read(.head, limit: 10, attempt: 2), "the failed batch goes again")
    }

    @Test func aSettleFailureAfterAShortReadReadsFromTheHead() {
        var machine = Self.machine(Self.after7)
        _ = machine.nextBatch(batchSize: 10)
        machine.batchRead(through: 20, full: false)
        _ = machine.sendFinished(.delivered, sent: 3, readAhead: nil, now: Self.now, batchSize: 10)
        machine.settleDidFail()
        #expect(machine.nextBatch(batchSize: 10) == .read(.head, limit: 10, attempt: 1), "its events are still queued")
    }
}
