import Beacon
import Synchronization

/// A sender that passes every batch to another and records how many were in flight at
/// once: to test that a destination never has more than its `maxConcurrentRequests`
/// sends under way, and that it does overlap them.
///
/// ```swift
/// let sender = InFlightSender(wrapping: httpSender)
/// …
/// #expect(sender.maxInFlight <= 4)
/// ```
public final class InFlightSender: EventSender {
    private struct State {
        var inFlight = 0
        var maxInFlight = 0
        var sends = 0
    }

    private let inner: any EventSender
    private let state = Mutex(State())

    /// Counts the sends that go through to `inner`.
    public init(wrapping inner: any EventSender) {
        self.inner = inner
    }

    public var endpointDescription: String { inner.endpointDescription }

    /// The most sends under way at the same time so far.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Sends under way now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Sends started so far.
    public var sends: Int { state.withLock { $0.sends } }

    public func send(_ batch: OutgoingBatch) async -> SendResult {
        state.withLock { state in
            state.inFlight += 1
            state.sends += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
        }
        let result = await inner.send(batch)
        state.withLock { $0.inFlight -= 1 }
        return result
    }

    public func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { inner.prepare(batch) }
}
