import BeaconWire
import Logging
import Synchronization

/// What the observer reads from the store beside the queue's counters (the oldest
/// pending events, the newest dead letters), read again only after the queue changed: an
/// idle engine asks its store nothing on the observer's ticks.
final class StoreFactsCache: Sendable {
    /// What is read.
    struct Facts: Sendable {
        var oldestPending: [String: Timestamp]
        var deadLetters: [DeadLetterSummary]
    }

    private let queue: any EventQueue
    private let logger: Logger
    private let readProblem = LastingProblem()
    /// Bumped by every queue event; the cached facts belong to `cached.generation`.
    private let cell = Mutex<(generation: UInt64, cached: (generation: UInt64, facts: Facts)?)>((0, nil))

    init(queue: any EventQueue, logger: Logger) {
        self.queue = queue
        self.logger = logger
        queue.addListener { [weak self] _ in self?.invalidate() }
    }

    func invalidate() {
        cell.withLock { $0.generation &+= 1 }
    }

    /// The facts, from the cache when nothing changed since they were read; `nil` when the
    /// store cannot be read now.
    func current() async -> Facts? {
        let generation = cell.withLock { cell -> UInt64? in
            if let cached = cell.cached, cached.generation == cell.generation { return nil }
            return cell.generation
        }
        guard let generation else { return cell.withLock { $0.cached?.facts } }
        do {
            let oldest = try await queue.oldestPending()
            // Only when there are any: most stores have none, and this read is the larger one.
            let letters = queue.depth.deadLetters > 0 ? try await queue.deadLetters(limit: DeadLetterSummary.snapshotLimit) : []
            let facts = Facts(oldestPending: oldest, deadLetters: letters.map(DeadLetterSummary.init))
            cell.withLock { $0.cached = (generation, facts) }
            readProblem.clear()
            return facts
        } catch {
            // The facts wait for the next tick. A store that takes writes can still fail a
            // read, which the writer would not report: logged when it starts or changes.
            let message = "\(error)"
            if readProblem.isNews(message) {
                logger.warning("cannot read the oldest pending events or the dead letters; ages and letters shown are the last read", metadata: [
                    "error": "\(message)",
                ])
            }
            return nil
        }
    }
}
