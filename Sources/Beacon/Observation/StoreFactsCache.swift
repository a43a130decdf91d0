import BeaconWire
import Logging
import Synchronization

/// What the observer reads from the store beside the queue's counters (the oldest
/// pending events, the newest dead letters), read again only after the queue changed: an
/// idle engine asks its store nothing on the observer's ticks.
final class StoreFactsCache: Sendable {
    private let queue: any EventQueue
    private let logger: Logger
    private let readProblem = LastingProblem()
    /// Bumped by every queue event; each cached fact belongs to the generation it was read at.
    private let cell = Mutex<Cached>(Cached())

    private struct Cached {
        var generation: UInt64 = 0
        var oldestPending: (generation: UInt64, value: [String: Timestamp])?
        var deadLetters: (generation: UInt64, value: [DeadLetterSummary])?
    }

    init(queue: any EventQueue, logger: Logger) {
        self.queue = queue
        self.logger = logger
        queue.addListener { [weak self] _ in self?.invalidate() }
    }

    func invalidate() {
        cell.withLock { $0.generation &+= 1 }
    }

    /// When each destination's oldest pending event was committed, from the cache when
    /// nothing changed since it was read; `nil` when the store cannot be read now. One
    /// row per destination, read by its primary key: cheap enough to ask after a settle.
    func oldestPending() async -> [String: Timestamp]? {
        await cached(\.oldestPending) { [queue] () async throws -> [String: Timestamp] in try await queue.oldestPending() }
    }

    /// The newest dead letters (at most ``DeadLetterSummary/snapshotLimit``), cached the
    /// same way; `nil` when the store cannot be read now.
    func deadLetters() async -> [DeadLetterSummary]? {
        await cached(\.deadLetters) { [queue] () async throws -> [DeadLetterSummary] in
            // Only when there are any: most stores have none, and this read is the larger one.
            guard queue.depth.deadLetters > 0 else { return [] }
            return try await queue.deadLetters(limit: DeadLetterSummary.snapshotLimit).map(DeadLetterSummary.init)
        }
    }

    /// The value at `fact`, read again by `read` only when the queue changed since.
    private func cached<Value: Sendable>(
        _ fact: WritableKeyPath<Cached, (generation: UInt64, value: Value)?> & Sendable,
        read: () async throws -> Value
    ) async -> Value? {
        let generation = cell.withLock { cell -> UInt64? in
            if let cached = cell[keyPath: fact], cached.generation == cell.generation { return nil }
            return cell.generation
        }
        guard let generation else { return cell.withLock { $0[keyPath: fact]?.value } }
        do {
            let value = try await read()
            cell.withLock { $0[keyPath: fact] = (generation, value) }
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
