import BeaconWire
import DequeModule
import Foundation

/// Tracks a scenario's events through the engine's ingest (`POST /v1/batch` to `beacon
/// agent`), on a thread of its own, on the schedule the steps give: a burst at once, a
/// rate spread evenly over a step. An event counts as tracked when the engine answered 200
/// (it is committed then); any other answer or a lost connection leaves its events in
/// doubt. The runner pauses the feeder around a kill: ``pause()`` returns once no post is
/// in flight, so a kill never cuts a post and the counts do not depend on timing.
final class EventFeeder: @unchecked Sendable {
    // @unchecked: every mutable property is read and written under `condition`'s lock.

    /// Events released together: `count` events of one step, the first due at `first`
    /// and each next one `interval` later.
    struct Release {
        var step: Int
        var stepName: String
        var poison: Bool
        var first: ContinuousClock.Instant
        var interval: Duration
        var count: Int
    }

    /// Per step: events the engine acknowledged, and events left in doubt.
    struct StepCounts: Sendable, Hashable {
        var tracked = 0
        var refused = 0
    }

    /// What the feeder did, for the report and the invariants.
    struct Ledger: Sendable {
        var steps: [Int: StepCounts] = [:]
        var tracked: Set<String> = []
        var inDoubt: Set<String> = []
        var poison: Set<String> = []
        /// The first few refusals, in words.
        var refusals: [String] = []
        /// When the engine acknowledged each run of events, in serial order: a post's
        /// events have consecutive serials, so one entry per post, not per event.
        var acknowledgements: [Acknowledgement] = []

        /// When event `serial` was acknowledged (ms since 1970), if it was.
        func acknowledged(serial: Int) -> Int64? {
            var low = 0
            var high = acknowledgements.count
            while low < high {
                let middle = (low + high) / 2
                if acknowledgements[middle].firstSerial + acknowledgements[middle].count <= serial {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            guard low < acknowledgements.count, acknowledgements[low].firstSerial <= serial else { return nil }
            return acknowledgements[low].atMilliseconds
        }
    }

    /// Events `firstSerial ..< firstSerial + count`, acknowledged at `atMilliseconds`.
    struct Acknowledgement: Sendable, Hashable {
        var firstSerial: Int
        var count: Int
        var atMilliseconds: Int64
    }

    /// Events per request at most.
    static let eventsPerPost = 250
    /// The longest wait for the engine's answer.
    static let answerTimeoutSeconds = 30

    private let events: SimulatedEvents
    private let condition = NSCondition()
    private var port: Int?
    private var releases: Deque<Release> = []
    private var inFlight = false
    private var stopped = false
    private var serial = 0
    private var ledger = Ledger()
    private var connection: RawHTTPConnection?

    init(events: SimulatedEvents) {
        self.events = events
    }

    /// Starts posting to the engine's ingest on `port`.
    func start(port: Int) {
        condition.withLock { self.port = port }
        Thread.detachNewThread { [self] in loop() }
    }

    /// Schedules `count` events of step `step`, the first at `first`, then one each `interval`.
    func schedule(_ release: Release) {
        guard release.count > 0 else { return }
        condition.withLock {
            releases.append(release)
            condition.broadcast()
        }
    }

    /// Stops posting once the post in flight (if any) is answered; returns then.
    func pause() async {
        await wait { feeder in
            feeder.port = nil
            feeder.connection = nil
            return !feeder.inFlight
        }
    }

    /// Posts again, to the engine's ingest on `port`.
    func resume(port: Int) {
        condition.withLock {
            self.port = port
            condition.broadcast()
        }
    }

    /// Whether every scheduled event has been posted and answered.
    var isIdle: Bool {
        condition.withLock { releases.isEmpty && !inFlight }
    }

    /// Events posted so far and answered 200.
    var trackedCount: Int {
        condition.withLock { ledger.tracked.count }
    }

    /// Stops the thread (after the post in flight) and returns what it did; events not yet
    /// posted are forgotten, not tracked.
    func stop() async -> Ledger {
        await wait { feeder in
            feeder.stopped = true
            return !feeder.inFlight
        }
        return condition.withLock { ledger }
    }

    /// Applies `change` under the lock and waits, off the cooperative pool, until it returns true.
    private func wait(_ change: @escaping @Sendable (EventFeeder) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [self] in
                condition.lock()
                while !change(self) { condition.wait() }
                condition.broadcast()
                condition.unlock()
                continuation.resume()
            }
        }
    }

    private func loop() {
        while let (port, due) = next() {
            post(due, to: port)
        }
    }

    /// The next events due and the port to post them to, waiting until some are due;
    /// `nil` once stopped.
    private func next() -> (Int, [(serial: Int, step: Int, stepName: String, poison: Bool)])? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopped { return nil }
            guard let port, let head = releases.first else {
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            if head.first > now {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (head.first - now).inSeconds))
                continue
            }
            var due: [(serial: Int, step: Int, stepName: String, poison: Bool)] = []
            while due.count < Self.eventsPerPost, var release = releases.first, release.first <= now {
                due.append((serial, release.step, release.stepName, release.poison))
                serial += 1
                release.count -= 1
                release.first = release.first + release.interval
                if release.count == 0 { releases.removeFirst() } else { releases[0] = release }
            }
            inFlight = true
            return (port, due)
        }
    }

    private func post(_ due: [(serial: Int, step: Int, stepName: String, poison: Bool)], to port: Int) {
        deliver(due, to: port)
        condition.withLock {
            inFlight = false
            condition.broadcast()
        }
    }

    /// Posts `due` in as many requests as the ingest's body limit needs: events must not be
    /// refused for the size of the post they happened to share (60 poison events of 9 KB
    /// in one post of 250 were all refused as too large, and none was tested).
    private func deliver(_ due: [(serial: Int, step: Int, stepName: String, poison: Bool)], to port: Int) {
        let body = Self.body(due, events: events)
        if due.count > 1, body.count > WireLimits.maxBatchBytes {
            let middle = due.count / 2
            deliver(Array(due[..<middle]), to: port)
            deliver(Array(due[middle...]), to: port)
            return
        }
        let outcome = send(due, body: body, to: port)
        if let refusal = outcome, due.count > 1, refusal.isQueueFull {
            // Which events a full queue refuses must not depend on how the due events
            // happened to be grouped into posts (the timing): a post refused as a whole for
            // a full queue goes again one event at a time until one is refused, so the
            // events that fit are taken, as they would be tracked one by one, and a seed's
            // run refuses the same events every time. The rest of the post is refused with
            // that one, unsent: the queue is full, and hundreds of posts refused one by one
            // would put the feeder behind its schedule (the next step's kill would find
            // events of this step not yet posted).
            for (index, event) in due.enumerated() {
                let single = send([event], body: Self.body([event], events: events), to: port)
                guard let single else {
                    record([event], nil)
                    continue
                }
                record(Array(due[index...]), single)
                break
            }
        } else {
            record(due, outcome)
        }
    }

    /// Why a post was not taken (nil: answered 200).
    private struct Refusal: Error {
        var text: String
        /// A 503 `queue_full`: the engine's queue is at its bound.
        var isQueueFull: Bool
    }

    /// The body of one post of `due`.
    private static func body(
        _ due: [(serial: Int, step: Int, stepName: String, poison: Bool)], events: SimulatedEvents
    ) -> [UInt8] {
        JSONValue.object([
            "batch": .array(due.map { events.event($0.serial, step: $0.step, stepName: $0.stepName, poison: $0.poison) })
        ]).jsonBytes
    }

    /// Posts `body` (the events `due`); nil when answered 200, else why not.
    private func send(
        _ due: [(serial: Int, step: Int, stepName: String, poison: Bool)], body: [UInt8], to port: Int
    ) -> Refusal? {
        var outcome: Refusal?
        // A kept-alive connection the server closed while idle fails at once: such a
        // failure is tried again once on a new connection (the collector downstream stores
        // each messageId once, so even a post that did arrive cannot be stored twice).
        for attempt in 1...2 {
            let kept = condition.withLock { self.connection }
            do {
                let connection = try kept ?? RawHTTPConnection(port: port, timeoutSeconds: Self.answerTimeoutSeconds)
                condition.withLock { self.connection = connection }
                let response = try connection.post("/v1/batch", body: body, gzip: false)
                if response.status == 200 {
                    outcome = nil
                } else {
                    let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                    outcome = Refusal(
                        text: "HTTP \(response.status): \(text)", isQueueFull: response.status == 503 && text.contains("queue_full"))
                }
                break
            } catch {
                condition.withLock { self.connection = nil }
                outcome = Refusal(text: "\(error)", isQueueFull: false)
                if kept == nil || attempt == 2 { break }
            }
        }
        return outcome
    }

    /// Enters the events in the ledger: tracked when answered 200, else in doubt.
    private func record(_ due: [(serial: Int, step: Int, stepName: String, poison: Bool)], _ outcome: Refusal?) {
        let now = Timestamp.now().millisecondsSince1970
        condition.withLock {
            if outcome == nil, let first = due.first {
                ledger.acknowledgements.append(Acknowledgement(firstSerial: first.serial, count: due.count, atMilliseconds: now))
            }
            for event in due {
                let id = events.messageId(event.serial)
                if outcome == nil {
                    ledger.tracked.insert(id)
                    ledger.steps[event.step, default: StepCounts()].tracked += 1
                } else {
                    ledger.inDoubt.insert(id)
                    ledger.steps[event.step, default: StepCounts()].refused += 1
                }
                if event.poison { ledger.poison.insert(id) }
            }
            if let outcome, ledger.refusals.count < 5 { ledger.refusals.append(outcome.text) }
        }
    }
}
