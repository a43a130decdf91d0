import Beacon
import BeaconCollector
import BeaconWire
import Logging

/// The store behind `beacon agent`'s Segment ingest: a ``CollectorStore`` that queues each
/// accepted event in the engine's SQLite queue (its own JSON, under its own `messageId`)
/// and returns only once every one of them is committed. So the collector's answer 200
/// means "durable in the agent's store"; anything short of that is a 503 with
/// `Retry-After`, and the client sends again (the collector downstream stores each
/// `messageId` once, so a resend after a lost answer is not a duplicate there).
struct AgentIngestStore: CollectorStore {
    let tracker: Tracker
    let queue: SQLiteEventQueue
    /// Told of every event refused at the bound, so the screen, `ctl status` and the
    /// engine's other surfaces count them (``EngineEvent/refusedAtBound(refused:)``).
    let observer: TrackingObserver
    /// The queue's bounds (``SQLiteEventQueue/bounds``): past them the queue would drop its
    /// oldest events, so the agent refuses new ones instead.
    var bounds: QueueBounds { queue.bounds ?? QueueBounds(maxEvents: .max, maxBytes: .max) }
    /// Told at once when a refusal made the queue full, so that `/metrics` says so before
    /// the refused client can ask (the engine's metrics otherwise follow its snapshots).
    let fullnessChanged: FullnessHook
    /// The longest wait for a batch's commit before answering 503.
    let commitTimeout: Duration
    let logger: Logger

    func insert(_ batch: AcceptedBatch) async throws -> StoreInsertResult {
        if let failure = queue.currentFailure {
            throw StoreUnavailableError(reason: "the agent's store is failing (\(failure)); send again later", retryAfterSeconds: 2)
        }
        var events: [WireEvent] = []
        events.reserveCapacity(batch.count)
        var rejections: [EventRejection] = []
        var bytes = 0
        for (index, accepted) in batch.essentials.enumerated() {
            do {
                // The collector's ingest made WireEvent's checks already: only the size is checked again.
                let event = try WireEvent(
                    checkedJSON: accepted.json, messageId: accepted.messageId, type: accepted.type,
                    namesItsType: accepted.namesItsType, name: accepted.name, time: accepted.time,
                    maxEventBytes: tracker.validator.maxEventBytes)
                bytes += event.json.count
                events.append(event)
            } catch {
                rejections.append(EventRejection(
                    index: index, messageId: accepted.messageId, code: error.code, reason: "Event \(index): \(error.description).")
                )
            }
        }
        if !rejections.isEmpty { throw StoreRefusedEventsError(rejections: rejections) }
        // One test for this refusal, /health, ctl status and the metric (`isFull`).
        guard queue.admits(events: events.count, bytes: bytes) else {
            observer.report(.refusedAtBound(refused: events.count))
            fullnessChanged.call()
            throw StoreUnavailableError(reason: fullness(queue.depth, bounds), retryAfterSeconds: 5, cause: .full)
        }
        // WireEvent already applied the same size limit, so this cannot refuse an event.
        // A handler on the cooperative pool: a full buffer suspends it, never blocks its thread.
        let tickets = try await tracker.enqueueSuspending(contentsOf: events).filter { $0.filtered == .keep }.map(\.ticket)
        if let last = tickets.max() {
            switch await queue.waitForCommit(last, timeout: commitTimeout) {
            case .committed:
                // The memory buffer drops its oldest events first when the store fails: check every one.
                guard tickets.allSatisfy({ queue.commitState(of: $0) == .committed }) else {
                    throw StoreUnavailableError(
                        reason: "some events were dropped before they could be stored; send again", retryAfterSeconds: 2)
                }
            case .dropped:
                throw StoreUnavailableError(
                    reason: "the events were dropped before they could be stored; send again", retryAfterSeconds: 2)
            case .timedOut:
                logger.warning("a batch was not committed in time", metadata: ["events": "\(events.count)"])
                throw StoreUnavailableError(
                    reason: "the agent's store did not commit the events within \(commitTimeout); send again",
                    retryAfterSeconds: 2)
            }
        }
        return StoreInsertResult(stored: events.count, duplicates: 0)
    }

    /// Events queued now (the agent forwards events; it keeps no browsable copy).
    func count() async throws -> Int { queue.depth.events }

    /// The queue's totals as `shared` in `/v1/stats`: `events` queued now (the agent
    /// forwards events and keeps no count of what left), no batches.
    func totals() async throws -> StoreTotals {
        StoreTotals(store: "beacon-queue", events: queue.depth.events, batches: 0)
    }

    func messageIds() async throws -> [String] { [] }

    func messageIdBytes() async throws -> [[UInt8]] { [] }

    func events(limit: Int) async throws -> [StoredEvent] { [] }

    /// `/health` answers 503 while the store fails or the queue is full (the ingest refuses
    /// every batch then), so a balancer or a script sees it.
    func health() async -> StoreHealth {
        if let failure = queue.currentFailure { return StoreHealth(kind: "beacon-queue", problem: "\(failure)") }
        // The same fact as the ingest's refusal, `ctl status` and `beacon_engine_queue_full`.
        guard !queue.isFull else {
            return StoreHealth(kind: "beacon-queue", problem: "queue full: " + fullness(queue.depth, bounds))
        }
        return StoreHealth(kind: "beacon-queue", problem: nil)
    }

    /// How full the queue is, against its bounds (`--max-queue-events`, `--max-queue-bytes`).
    private func fullness(_ depth: QueueDepth, _ bounds: QueueBounds) -> String {
        "\(depth.events + depth.buffered) of \(bounds.maxEvents) events, \(depth.bytes) of \(bounds.maxBytes) bytes; "
            + "it takes more once its destinations drain it"
    }

    func run() async {}
}
