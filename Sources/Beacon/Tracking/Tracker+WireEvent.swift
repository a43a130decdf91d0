import BeaconWire

extension Tracker {
    /// Queues an event another Segment client wrote (see ``WireEvent``): its JSON and its
    /// `messageId` are kept as they are, so the collector deduplicates the client's own
    /// ids. Returns once the event is buffered; await ``TrackReceipt/committed()`` (or the
    /// queue's bounded `waitForCommit(_:timeout:)`) to know it is stored.
    ///
    /// The tracker's own `context` is not merged in: the client's event already says who
    /// sent it. Remote-config blocklist and sampling apply as they do to `track`.
    ///
    /// - Throws: ``TrackingError/eventTooLarge(bytes:limit:)`` when the event is over this
    ///   tracker's ``EventValidator/maxEventBytes``.
    @discardableResult
    public func enqueue(_ event: WireEvent) throws(TrackingError) -> TrackReceipt {
        switch try admit(event) {
        case .filtered(let receipt): return receipt
        case .append(let pending): return TrackReceipt(messageId: event.messageId, ticket: queue.append(pending), queue: queue)
        }
    }

    /// ``enqueue(_:)`` for a task: while the queue's memory buffer is full (a commit is
    /// slow), it suspends instead of holding its thread (`beacon agent`'s ingest, whose
    /// handlers run on Swift's cooperative pool, two threads on two cores).
    @discardableResult
    public func enqueueSuspending(_ event: WireEvent) async throws(TrackingError) -> TrackReceipt {
        switch try admit(event) {
        case .filtered(let receipt): return receipt
        case .append(let pending):
            return TrackReceipt(messageId: event.messageId, ticket: await queue.appendSuspending(pending), queue: queue)
        }
    }

    /// Checks `event`'s size and the remote-config filter: what to append, or the receipt
    /// of an event filtered out.
    private func admit(_ event: WireEvent) throws(TrackingError) -> Admission {
        do {
            try validator.validate(encodedBytes: event.json.count)
        } catch {
            observer?.report(.rejected(error))
            throw error
        }
        let name = event.name ?? event.type
        if let filter {
            let decision = filter.decide(name: name, messageId: event.messageId)
            if decision != .keep {
                return .filtered(TrackReceipt(messageId: event.messageId, ticket: CommitTicket(rawValue: 0), queue: queue, filtered: decision))
            }
        }
        // The time the event reached this queue, not the client's `timestamp`: the queue's
        // ages (how long an event has waited here) are measured from it.
        return .append(PendingEvent(messageId: event.messageId, name: name, payload: event.json, createdAt: .now()))
    }

    /// An event that passed ``admit(_:)``, or the receipt of one filtered out.
    private enum Admission {
        case append(PendingEvent)
        case filtered(TrackReceipt)
    }
}
