import Beacon
import BeaconSimulation
import Foundation

/// What the runner saw, sample by sample: the timeline for the chart, each step's counts,
/// and when each outage's backlog had drained. Plain state the run's one loop mutates.
struct SimulationRecorder {
    /// One look at the engine and the collectors.
    struct Observation {
        /// Seconds since the run started, and the wall-clock time (the engine's ages are
        /// wall-clock).
        var time: Double
        var date: Date
        /// The engine's status; `nil` when it did not answer.
        var status: EngineStatusReport?
        /// Summed over collectors.
        var stored: Int
        var duplicates: Int
        /// Events the feeder got acknowledged so far.
        var tracked: Int
    }

    /// Engine counts over the run: requests, bytes, retries and splits summed over its
    /// processes (each counts from zero); dead letters as the store counts them, over its life.
    struct EngineCounts {
        var retries = 0
        var splits = 0
        var deadLettered = 0
        var requests = 0
        var bytesSent = 0

        init() {}

        init(_ totals: EngineStatusReport.Totals) {
            retries = totals.retried
            splits = totals.split
            deadLettered = totals.deadLettered
            requests = totals.requests
            bytesSent = totals.bytesSent
        }

        static func + (lhs: Self, rhs: Self) -> Self {
            var sum = lhs
            sum.retries &+= rhs.retries
            sum.splits &+= rhs.splits
            sum.deadLettered &+= rhs.deadLettered
            sum.requests &+= rhs.requests
            sum.bytesSent &+= rhs.bytesSent
            return sum
        }

        static func - (lhs: Self, rhs: Self) -> Self {
            var difference = lhs
            difference.retries &-= rhs.retries
            difference.splits &-= rhs.splits
            difference.deadLettered &-= rhs.deadLettered
            difference.requests &-= rhs.requests
            difference.bytesSent &-= rhs.bytesSent
            return difference
        }
    }

    /// A recovery whose drain is being timed: its step (`nil` for the final drain) and when.
    struct Recovery {
        var step: Int?
        var time: Double
        var date: Date
        var drainedAfter: Double?
        /// The same, destination by destination.
        var destinationsDrainedAfter: [String: Double] = [:]
    }

    private(set) var samples: [SimulationTimeline.Sample] = []
    private(set) var steps: [StepReport] = []
    private(set) var marks: [SimulationTimeline.Mark] = []
    private(set) var recoveries: [Recovery] = []
    private(set) var maxDepth: Int?
    /// The most events pending for each destination at one sample.
    private(set) var destinationMaxDepth: [String: Int] = [:]
    private var last: Observation?
    /// Counts of the engine processes that ended, and the latest of the current one.
    private var endedProcesses = EngineCounts()
    private var currentProcess = EngineCounts()
    private var stepStartCounts = EngineCounts()
    private var stepStartStored = 0
    /// The store's dead letters over its life, as last reported.
    private var lifetimeDeadLettered = 0

    /// The engine's status at the last sample (`nil`: it did not answer).
    var lastStatus: EngineStatusReport? { last?.status }

    /// Engine counts over every process so far (those since the last sample before a kill are lost).
    var engineCounts: EngineCounts { endedProcesses + currentProcess }

    /// Opens a step's record at `time`.
    mutating func begin(_ step: StepReport) {
        steps.append(step)
        stepStartCounts = engineCounts
        stepStartStored = last?.stored ?? 0
    }

    /// Adds a note to the open step's actions (a command the engine did not apply).
    mutating func note(_ text: String) {
        guard let index = steps.indices.last else { return }
        steps[index].actions.append(text)
    }

    /// Marks a one-shot action (a kill, a burst) on the timeline.
    mutating func mark(_ label: String, at time: Double) {
        marks.append(SimulationTimeline.Mark(time: time, label: label))
    }

    /// Starts timing the drain of everything tracked before now.
    mutating func recovered(step: Int?, at time: Double, date: Date) {
        recoveries.append(Recovery(step: step, time: time, date: date))
    }

    /// The engine process ended (killed): its counts are kept, the next one counts from zero.
    mutating func engineRestarted() {
        currentProcess.deadLettered = 0  // the store's lifetime count: the next process reports it whole
        endedProcesses = endedProcesses + currentProcess
        currentProcess = EngineCounts()
        currentProcess.deadLettered = lifetimeDeadLettered
    }

    /// Takes one observation into the timeline, the open step and the pending recoveries.
    mutating func record(_ observation: Observation) {
        if let totals = observation.status?.totals {
            currentProcess = EngineCounts(totals)
            lifetimeDeadLettered = totals.deadLettered
        }
        let depth = observation.status?.queue.events
        var tracked = 0.0
        var delivered = 0.0
        if let last, observation.time > last.time {
            let seconds = observation.time - last.time
            tracked = Double(observation.tracked - last.tracked) / seconds
            delivered = Double(observation.stored - last.stored) / seconds
        }
        let pending = observation.status.map { status in
            Dictionary(status.destinations.map { ($0.name, $0.pending) }, uniquingKeysWith: max)
        }
        samples.append(
            SimulationTimeline.Sample(
                time: observation.time, depth: depth, trackedPerSecond: tracked, deliveredPerSecond: delivered,
                destinations: pending))
        if let depth { maxDepth = max(maxDepth ?? 0, depth) }
        if let index = steps.indices.last {
            if let depth { steps[index].maxDepth = max(steps[index].maxDepth ?? 0, depth) }
            let ages = observation.status?.destinations.compactMap(\.oldestPendingAge) ?? []
            if let oldest = ages.max() {
                steps[index].oldestPendingSeconds = max(steps[index].oldestPendingSeconds ?? 0, oldest)
            }
            let counts = engineCounts - stepStartCounts
            steps[index].retries = counts.retries
            steps[index].splits = counts.splits
            steps[index].deadLetters = counts.deadLettered
            steps[index].requests = counts.requests
            steps[index].bytesSent = counts.bytesSent
            steps[index].delivered = observation.stored - stepStartStored
        }
        if let status = observation.status {
            for destination in status.destinations {
                destinationMaxDepth[destination.name] = max(destinationMaxDepth[destination.name] ?? 0, destination.pending)
            }
            for index in recoveries.indices where recoveries[index].drainedAfter == nil {
                // Drained: no destination still holds an event that was waiting before the recovery.
                let since = observation.date.timeIntervalSince(recoveries[index].date)
                let after = max(0, observation.time - recoveries[index].time)
                var waiting = false
                for destination in status.destinations {
                    let holds = destination.pending > 0 && destination.oldestPendingAge.map { since < $0 } == true
                    if holds {
                        waiting = true
                    } else if recoveries[index].destinationsDrainedAfter[destination.name] == nil {
                        recoveries[index].destinationsDrainedAfter[destination.name] = after
                    }
                }
                if !waiting {
                    recoveries[index].drainedAfter = after
                }
            }
        }
        last = observation
    }

    /// Closes the open step at `time` (its tracked and refused counts come at the end,
    /// from ``settle(counts:)``).
    mutating func end(at time: Double) {
        guard let index = steps.indices.last else { return }
        steps[index].seconds = max(0, time - steps[index].start)
    }

    /// Writes the feeder's final per-step counts (events of a step may be posted after it).
    mutating func settle(counts: [Int: EventFeeder.StepCounts]) {
        for index in steps.indices {
            steps[index].tracked = counts[index]?.tracked ?? 0
            steps[index].refused = counts[index]?.refused ?? 0
        }
        for recovery in recoveries {
            if let step = recovery.step, steps.indices.contains(step) { steps[step].drainSeconds = recovery.drainedAfter }
        }
    }
}
