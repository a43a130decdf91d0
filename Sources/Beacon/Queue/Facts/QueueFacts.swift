/// The facts a queue publishes, from the moment of ``EventQueue/facts(wake:)``: every
/// commit, drop, settle, storage fault and recovery and dead-letter change, in the order
/// they happened, each once. This is the engine's one stream out of its queue: the
/// batchers wake on it, the observer derives its figures from it, the status cache
/// forgets on it. Nothing of a subscriber runs on the queue's writer thread.
///
/// One reader per subscription (subscribe again for another). A reader that falls behind
/// loses nothing: it finds everything published meanwhile at its next read, read at
/// once, with commits in a row merged into one (their counts added, the last depth). The subscription ends when its iterator goes away, when the reading task is
/// cancelled, or when the queue closes.
///
/// ```swift
/// for await fact in queue.facts() {
///     if case .committed(let count, let depth) = fact { print(count, depth.events) }
/// }
/// ```
public struct QueueFacts: AsyncSequence, Sendable {
    public typealias Element = QueueEvent
    public typealias Failure = Never

    /// When a waiting reader is woken.
    public enum Wake: Sendable, Hashable {
        /// By every fact.
        case always
        /// By every fact but a commit: commits wait, merged into one, until another
        /// fact, ``QueueFacts/takeAvailable()`` or ``QueueFacts/setWake(_:)``. For a reader that applies them when read.
        case notForCommits
    }

    let handle: Handle

    /// Ends the subscription when the last copy of the sequence or its iterator goes.
    final class Handle: Sendable {
        let publisher: QueueFactPublisher
        /// `nil`: subscribed after the queue closed (the sequence is empty).
        let id: Int?

        init(publisher: QueueFactPublisher, id: Int?) {
            self.publisher = publisher
            self.id = id
        }

        deinit {
            if let id { publisher.cancel(id) }
        }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(facts: self) }

    /// Every fact published and not yet read, waiting for one when there is none;
    /// `nil` once the subscription ended. For readers that apply facts in bursts.
    public func nextFacts() async -> [QueueEvent]? {
        guard let id = handle.id, let facts = await handle.publisher.next(id), !facts.isEmpty else { return nil }
        return facts
    }

    /// Every fact published and not yet read, without waiting (empty when none is).
    /// Facts an iterator already holds are not among them: use one way of reading.
    public func takeAvailable() -> [QueueEvent] {
        guard let id = handle.id else { return [] }
        return handle.publisher.takePending(id)
    }

    /// Changes when the reader is woken (see ``Wake``); a reader waiting while commits
    /// are pending is woken at once when it becomes ``Wake/always``.
    public func setWake(_ wake: Wake) {
        if let id = handle.id { handle.publisher.setWake(wake, id) }
    }

    /// Whether a reader waits for a fact now.
    @_spi(Testing) public var isReaderWaiting: Bool {
        guard let id = handle.id else { return false }
        return handle.publisher.isWaiting(id)
    }

    /// Ends the subscription now (a waiting reader gets the end).
    public func cancel() {
        if let id = handle.id { handle.publisher.cancel(id) }
    }

    public struct Iterator: AsyncIteratorProtocol {
        let facts: QueueFacts
        private var buffer: [QueueEvent] = []
        private var index = 0

        init(facts: QueueFacts) { self.facts = facts }

        public mutating func next() async -> QueueEvent? {
            if index < buffer.count {
                defer { index += 1 }
                return buffer[index]
            }
            guard let next = await facts.nextFacts() else { return nil }
            buffer = next
            index = 1
            return next[0]
        }
    }
}
