import BeaconWire
import Logging

/// Reads what the observer shows beside the queue's counters (the oldest pending events,
/// the newest dead letters). The observer asks only after the queue's facts changed what
/// they read (``TrackingObserver/tick()``): an idle engine asks its store nothing on the
/// observer's ticks.
final class StoreFactsReader: Sendable {
    private let queue: any EventQueue
    private let logger: Logger
    private let readProblem = LastingProblem()

    init(queue: any EventQueue, logger: Logger) {
        self.queue = queue
        self.logger = logger
    }

    /// When each destination's oldest pending event was committed; `nil` when the store
    /// cannot be read now. One row per destination, read by its primary key: cheap
    /// enough to ask after a settle.
    func oldestPending() async -> [String: Timestamp]? {
        await read { [queue] () async throws -> [String: Timestamp] in try await queue.oldestPending() }
    }

    /// The newest dead letters (at most ``DeadLetterSummary/snapshotLimit``); `nil` when
    /// the store cannot be read now.
    func deadLetters() async -> [DeadLetterSummary]? {
        await read { [queue] () async throws -> [DeadLetterSummary] in
            // Only when there are any: most stores have none, and this read is the larger one.
            guard queue.depth.deadLetters > 0 else { return [] }
            return try await queue.deadLetters(limit: DeadLetterSummary.snapshotLimit).map(DeadLetterSummary.init)
        }
    }

    private func read<Value: Sendable>(_ body: () async throws -> Value) async -> Value? {
        do {
            let value = try await body()
            readProblem.clear()
            return value
        } catch {
            report(error)
            return nil
        }
    }

    /// The facts wait for the next read. A store that takes writes can still fail a read,
    /// which the writer would not report: logged when it starts or changes.
    private func report(_ error: any Error) {
        let message = "\(error)"
        if readProblem.isNews(message) {
            logger.warning("cannot read the oldest pending events or the dead letters; ages and letters shown are the last read", metadata: [
                "error": "\(message)",
            ])
        }
    }
}
