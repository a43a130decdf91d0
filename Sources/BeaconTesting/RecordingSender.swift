import Beacon
import Synchronization

/// A sender that records every batch and answers from a script: the fake destination
/// of engine tests.
///
/// ```swift
/// let sender = RecordingSender { batch, call in call < 3 ? SendResult(.retryable(reason: "503", retryAfter: nil), status: 503) : SendResult(.delivered, status: 200) }
/// let first = await sender.waitForSends(1)
/// ```
public final class RecordingSender: EventSender {
    /// Answers the `call`-th send (0 for the first).
    public typealias Script = @Sendable (_ batch: OutgoingBatch, _ call: Int) -> SendResult

    private struct State {
        var batches: [OutgoingBatch] = []
        var script: Script
        var watchers: [Watcher] = []
        var nextWatcher = 0
    }

    /// A caller of ``waitForSends(_:)`` waiting for `count` sends.
    private struct Watcher {
        var id: Int
        var count: Int
        var continuation: CheckedContinuation<[OutgoingBatch], Never>
    }

    private let state: Mutex<State>
    public let endpointDescription: String

    /// A sender that delivers everything unless told otherwise.
    public init(endpoint: String = "recording://test", script: @escaping Script = { _, _ in SendResult(.delivered, status: 200) }) {
        self.endpointDescription = endpoint
        self.state = Mutex(State(script: script))
    }

    /// Replaces the script (for the next sends).
    public func setScript(_ script: @escaping Script) {
        state.withLock { $0.script = script }
    }

    /// Every batch sent so far, in order.
    public var batches: [OutgoingBatch] { state.withLock { $0.batches } }

    /// The messageIds of the batches the script answered as delivered, in order.
    public func deliveredMessageIds(where delivered: (OutgoingBatch, Int) -> Bool) -> [String] {
        batches.enumerated().filter { delivered($0.element, $0.offset) }.flatMap { $0.element.events.map(\.messageId) }
    }

    public func send(_ batch: OutgoingBatch) async -> SendResult {
        let (result, ready) = state.withLock { state -> (SendResult, [(CheckedContinuation<[OutgoingBatch], Never>, [OutgoingBatch])]) in
            let call = state.batches.count
            state.batches.append(batch)
            let result = state.script(batch, call)
            var ready: [(CheckedContinuation<[OutgoingBatch], Never>, [OutgoingBatch])] = []
            let batches = state.batches
            state.watchers.removeAll { watcher in
                guard watcher.count <= batches.count else { return false }
                ready.append((watcher.continuation, batches))
                return true
            }
            return (result, ready)
        }
        for (continuation, batches) in ready { continuation.resume(returning: batches) }
        return result
    }

    /// Returns the batches once at least `count` sends have happened, or the batches sent
    /// so far when the waiting task is cancelled first (by a test's time limit, say): a
    /// send that never comes then fails the test's expectations instead of hanging it.
    public func waitForSends(_ count: Int) async -> [OutgoingBatch] {
        let id = state.withLock { state in
            defer { state.nextWatcher += 1 }
            return state.nextWatcher
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let batches = state.withLock { state -> [OutgoingBatch]? in
                    // Checked under the lock: a cancellation after this finds the watcher.
                    if state.batches.count >= count || Task.isCancelled { return state.batches }
                    state.watchers.append(Watcher(id: id, count: count, continuation: continuation))
                    return nil
                }
                if let batches { continuation.resume(returning: batches) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> (CheckedContinuation<[OutgoingBatch], Never>, [OutgoingBatch])? in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                return (state.watchers.remove(at: index).continuation, state.batches)
            }
            if let (continuation, batches) = waiting { continuation.resume(returning: batches) }
        }
    }
}
