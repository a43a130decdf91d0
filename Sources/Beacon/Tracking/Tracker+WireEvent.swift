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
            let ticket = await queue.appendSuspending(pending)
            countAccepted(CollectionOfOne(pending.name))
            return TrackReceipt(messageId: event.messageId, ticket: ticket, queue: queue)
        }
    }

    /// ``enqueueSuspending(_:)`` for a request's events at once: all are checked before
    /// any is queued (one refused, none queued), then appended in order, as many at a time
    /// as the memory buffer has room for (``EventQueue/appendSuspending(contentsOf:)``).
    public func enqueueSuspending(contentsOf events: [WireEvent]) async throws(TrackingError) -> [TrackReceipt] {
        var admitted: [Admission] = []
        admitted.reserveCapacity(events.count)
        for event in events { admitted.append(try admit(event)) }
        var pending: [PendingEvent] = []
        pending.reserveCapacity(events.count)
        for case .append(let event) in admitted { pending.append(event) }
        var tickets = await queue.appendSuspending(contentsOf: pending).makeIterator()
        countAccepted(pending.lazy.map(\.name))
        return zip(events, admitted).map { event, admission in
            switch admission {
            case .filtered(let receipt): return receipt
            // One ticket per appended event, in order: the iterator cannot run out here.
            case .append: return TrackReceipt(messageId: event.messageId, ticket: tickets.next() ?? CommitTicket(rawValue: 0), queue: queue)
            }
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
