import BeaconWire
import Synchronization

/// ``EventQueue/oldestPending()`` read again only after the queue changed: an idle engine
/// asks its store nothing on the observer's ticks.
final class OldestPendingCache: Sendable {
    private let queue: any EventQueue
    /// Bumped by every queue event; the cached value belongs to `generation`.
    private let cell = Mutex<(generation: UInt64, cached: (generation: UInt64, value: [String: Timestamp])?)>((0, nil))

    init(queue: any EventQueue) {
        self.queue = queue
        queue.addListener { [weak self] _ in self?.invalidate() }
    }

    func invalidate() {
        cell.withLock { $0.generation &+= 1 }
    }

    /// The ages, from the cache when nothing changed since they were read; `nil` when the
    /// store cannot be read now.
    func current() async -> [String: Timestamp]? {
        let generation = cell.withLock { cell -> UInt64? in
            if let cached = cell.cached, cached.generation == cell.generation { return nil }
            return cell.generation
        }
        guard let generation else { return cell.withLock { $0.cached?.value } }
        do {
            let value = try await queue.oldestPending()
            cell.withLock { $0.cached = (generation, value) }
            return value
        } catch {
            return nil  // a failing store is reported by the writer; the ages wait for the next tick
        }
    }
}
