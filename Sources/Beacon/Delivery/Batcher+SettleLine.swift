import DequeModule

extension Batcher {
    /// The settles a batcher has handed off and not yet run, in queue order, and who waits
    /// on them: the batcher's settle loop (a child of its `run()`) waits for the next one,
    /// a drain that must read from the head waits for the line to empty.
    ///
    /// Plain data the actor holds. Its waits are checked continuations, which a
    /// cancellation does not end: a hard stop cancels `run()`, and every settle handed off
    /// before it still lands (the queue's write transactions are not cancelled either), so
    /// a batch the collector took is not sent again on the next start.
    struct SettleLine {
        struct Item {
            var settlement: BatchSettlement
            /// Whether the drain goes on after this batch; if not, the leases go once it landed.
            var continuing: Bool
        }

        private var items: Deque<Item> = []
        /// Whether the settle loop is running one now.
        private var running = false
        private var closed = false
        /// The settle loop, waiting for an item (or the close).
        private var loop: CheckedContinuation<Void, Never>?
        /// Callers of ``Batcher/finishSettling()``, waiting for the line to empty.
        private var idle: [CheckedContinuation<Void, Never>] = []
        /// Drains waiting for room in a full line (``hasRoom``).
        private var roomWaiters: [CheckedContinuation<Void, Never>] = []

        /// How many settles may wait their turn. Settles land faster than batches are
        /// sent, so the line holds one at most, unless the store refuses them: the
        /// sending then waits here rather than run ahead of what is stored.
        static var capacity: Int { 2 }

        /// Whether a settle can join the line now (a closed line takes none, and holds no one back).
        var hasRoom: Bool { closed || items.count < Self.capacity }

        /// A drain waits for room: `continuation` resumes when a settle leaves the line, or at the close.
        mutating func waitForRoom(_ continuation: CheckedContinuation<Void, Never>) {
            if hasRoom {
                continuation.resume()
            } else {
                roomWaiters.append(continuation)
            }
        }

        /// Whether nothing is waiting or running.
        var isEmpty: Bool { items.isEmpty && !running }

        enum Appended {
            /// In line; `wake` is the settle loop's continuation to resume, if it waits.
            case queued(wake: CheckedContinuation<Void, Never>?)
            /// The line is closed (the run ended): the caller settles it itself.
            case closed
        }

        /// Adds a settle to the line.
        mutating func append(_ item: Item) -> Appended {
            guard !closed else { return .closed }
            items.append(item)
            defer { loop = nil }
            return .queued(wake: loop)
        }

        enum Next {
            /// Run this settle; the drains waiting for room in the line resume.
            case settle(Item, room: [CheckedContinuation<Void, Never>])
            /// Nothing to do: wait (``waitForWork(_:)``); the waiters on an empty line resume.
            case wait(idle: [CheckedContinuation<Void, Never>])
            /// Closed and empty: the loop ends; the waiters resume.
            case end(idle: [CheckedContinuation<Void, Never>])
        }

        /// What the settle loop does next (after the item it ran, if any).
        mutating func next() -> Next {
            running = false
            if let item = items.popFirst() {
                running = true
                defer { roomWaiters = [] }
                return .settle(item, room: roomWaiters)
            }
            defer { idle = [] }
            return closed ? .end(idle: idle) : .wait(idle: idle)
        }

        /// The loop waits: `continuation` resumes at the next append or the close.
        mutating func waitForWork(_ continuation: CheckedContinuation<Void, Never>) {
            if !items.isEmpty || closed {
                continuation.resume()
            } else {
                loop = continuation
            }
        }

        /// A caller waits for the line to empty (`continuation` resumes then).
        mutating func waitUntilEmpty(_ continuation: CheckedContinuation<Void, Never>) {
            if isEmpty {
                continuation.resume()
            } else {
                idle.append(continuation)
            }
        }

        /// No more settles: the loop ends once the line is empty. Returns the
        /// continuations to resume: the loop's, if it waits, and the drains waiting for room.
        mutating func close() -> [CheckedContinuation<Void, Never>] {
            closed = true
            defer { loop = nil; roomWaiters = [] }
            return (loop.map { [$0] } ?? []) + roomWaiters
        }
    }
}
