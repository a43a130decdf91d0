/// The control channel's open connections. It admits up to a capacity; when full, it
/// makes room by closing the connection idle the longest (never one watching, nor one
/// whose request is under way), so that an operator always gets in, whatever number of
/// silent connections someone left open. A pure value: the server holds it under a lock
/// and closes what it says.
struct ControlConnectionTable<Connection, Instant: Comparable> {
    struct Entry {
        var connection: Connection
        /// When its last request ended (or it was accepted).
        var lastActive: Instant
        /// A request is being answered.
        var isBusy = false
        /// It streams snapshots (`watch`): busy for good.
        var isWatching = false
    }

    /// What ``admit(_:now:)`` decided.
    enum Admission {
        /// In, under this id; `evicting`, when given, is to be closed to make room.
        case admitted(id: Int, evicting: Connection?)
        /// Full of connections that cannot be closed: refuse this one.
        case refused
    }

    let capacity: Int
    private(set) var entries: [Int: Entry] = [:]
    private var nextID = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    mutating func admit(_ connection: Connection, now: Instant) -> Admission {
        var evicted: Connection?
        if entries.count >= capacity {
            let idle = entries.filter { !$0.value.isBusy && !$0.value.isWatching }
            guard let oldest = idle.min(by: { $0.value.lastActive < $1.value.lastActive }) else { return .refused }
            evicted = entries.removeValue(forKey: oldest.key)?.connection
        }
        nextID += 1
        entries[nextID] = Entry(connection: connection, lastActive: now)
        return .admitted(id: nextID, evicting: evicted)
    }

    /// A request arrived on `id`.
    mutating func begin(_ id: Int) { entries[id]?.isBusy = true }

    /// The request on `id` was answered at `now`.
    mutating func end(_ id: Int, now: Instant) {
        entries[id]?.isBusy = false
        entries[id]?.lastActive = now
    }

    /// `id` streams snapshots from now on.
    mutating func watch(_ id: Int) { entries[id]?.isWatching = true }

    /// `id` closed (or was evicted: then nothing happens).
    mutating func remove(_ id: Int) { entries[id] = nil }
}
