import Synchronization

/// Hands every fact a queue publishes to each of its subscribers, in order, without
/// running any subscriber's code: publishing appends the fact to each subscription and
/// resumes a subscriber waiting for one (a job on its executor), nothing else. This is
/// what keeps the queue's writer thread free of listeners: the batchers, the observer and
/// the status cache each read their own subscription in their own task.
///
/// A subscriber that is busy finds every fact published meanwhile at its next read, all
/// at once (one lock, one wake for a whole burst of commits), commits in a row unread
/// merged into one. A subscription may also
/// ask not to be woken by commits alone (``QueueFacts/Wake/notForCommits``): the
/// observer, while nobody watches it, applies commits when it is next read or woken.
final class QueueFactPublisher: Sendable {
    private let state = Mutex<State>(State())

    private typealias Waiter = CheckedContinuation<[QueueEvent]?, Never>

    private struct State {
        /// Few (a batcher per destination, the observer, a cache): a scan is cheapest.
        var subscriptions: [Subscription] = []
        var nextID = 0
        var isFinished = false

        func index(of id: Int) -> Int? { subscriptions.firstIndex { $0.id == id } }

        /// Takes the waiter of subscription `index` with its pending facts.
        mutating func takeWaiter(_ index: Int) -> (Waiter, [QueueEvent])? {
            guard let waiter = subscriptions[index].waiter else { return nil }
            subscriptions[index].waiter = nil
            defer { subscriptions[index].pending.removeAll(keepingCapacity: true) }
            return (waiter, subscriptions[index].pending)
        }
    }

    /// One subscriber's facts not yet read, and its waiting reader.
    private struct Subscription {
        let id: Int
        var pending: [QueueEvent] = []
        var waiter: Waiter?
        var wake: QueueFacts.Wake
    }

    init() {}

    /// A new subscription: it holds every fact published from now on.
    func subscribe(wake: QueueFacts.Wake = .always) -> QueueFacts {
        let id: Int? = state.withLock { state in
            guard !state.isFinished else { return nil }
            defer { state.nextID += 1 }
            state.subscriptions.append(Subscription(id: state.nextID, wake: wake))
            return state.nextID
        }
        return QueueFacts(handle: QueueFacts.Handle(publisher: self, id: id))
    }

    /// Publishes `fact` to every subscriber.
    func publish(_ fact: QueueEvent) {
        let isCommit = if case .committed = fact { true } else { false }
        let woken: [(Waiter, [QueueEvent])] = state.withLock { state in
            var woken: [(Waiter, [QueueEvent])] = []
            for index in state.subscriptions.indices {
                // Commits in a row unread are one commit of them all at the last depth:
                // a reader that is not reading holds one fact, not one per commit.
                if case .committed(let count, let depth) = fact,
                   case .committed(let before, _)? = state.subscriptions[index].pending.last {
                    let (sum, overflow) = before.addingReportingOverflow(count)
                    state.subscriptions[index].pending[state.subscriptions[index].pending.count - 1] =
                        .committed(count: overflow ? .max : sum, depth: depth)
                } else {
                    state.subscriptions[index].pending.append(fact)
                }
                let subscription = state.subscriptions[index]
                guard subscription.waiter != nil else { continue }
                guard !isCommit || subscription.wake == .always else { continue }
                if let taken = state.takeWaiter(index) { woken.append(taken) }
            }
            return woken
        }
        for (waiter, facts) in woken { waiter.resume(returning: facts) }
    }

    /// Ends every subscription: readers get what is pending, then the end.
    func finish() {
        let woken: [(Waiter, [QueueEvent])] = state.withLock { state in
            state.isFinished = true
            return state.subscriptions.indices.compactMap { state.takeWaiter($0) }
        }
        for (waiter, facts) in woken { waiter.resume(returning: facts.isEmpty ? nil : facts) }
    }

    /// What `id` has pending, without waiting (empty when nothing is).
    func takePending(_ id: Int) -> [QueueEvent] {
        state.withLock { state in
            guard let index = state.index(of: id), !state.subscriptions[index].pending.isEmpty else { return [] }
            defer { state.subscriptions[index].pending.removeAll(keepingCapacity: true) }
            return state.subscriptions[index].pending
        }
    }

    /// Waits for facts for `id`; `nil` once the publisher finished (and nothing is
    /// pending), the subscription was cancelled or the task is.
    func next(_ id: Int) async -> [QueueEvent]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                enum Now { case resume([QueueEvent]?), wait }
                let now: Now = state.withLock { state in
                    guard let index = state.index(of: id) else { return .resume(nil) }
                    if !state.subscriptions[index].pending.isEmpty {
                        defer { state.subscriptions[index].pending.removeAll(keepingCapacity: true) }
                        return .resume(state.subscriptions[index].pending)
                    }
                    if state.isFinished || Task.isCancelled {
                        state.subscriptions.remove(at: index)
                        return .resume(nil)
                    }
                    state.subscriptions[index].waiter = continuation
                    return .wait
                }
                if case .resume(let facts) = now { continuation.resume(returning: facts) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Makes the subscription wake for commits alone, or not; a reader waiting while
    /// commits are pending is woken at once.
    func setWake(_ wake: QueueFacts.Wake, _ id: Int) {
        let woken: (Waiter, [QueueEvent])? = state.withLock { state in
            guard let index = state.index(of: id) else { return nil }
            state.subscriptions[index].wake = wake
            guard wake == .always, !state.subscriptions[index].pending.isEmpty else { return nil }
            return state.takeWaiter(index)
        }
        if let (waiter, facts) = woken { waiter.resume(returning: facts) }
    }

    /// Ends the subscription `id` (its reader, if waiting, gets the end).
    func cancel(_ id: Int) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.index(of: id) else { return nil }
            return state.subscriptions.remove(at: index).waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Whether the reader of `id` waits now.
    func isWaiting(_ id: Int) -> Bool {
        state.withLock { state in state.index(of: id).map { state.subscriptions[$0].waiter != nil } ?? false }
    }

    /// Subscriptions now (a subscriber that went away leaves none behind).
    var subscriberCount: Int { state.withLock { $0.subscriptions.count } }
}
