/// How many events were accepted under each name, the busiest first, in a bounded space
/// however many names arrive: what floods the queue. The Space-Saving algorithm (Metwally,
/// Agrawal and El Abbadi, 2005) keeps at most ``capacity`` names; a new name past it takes
/// the place of the least counted one, starting from that one's count. So every name
/// counted more than ``total`` ÷ ``capacity`` times is kept, and a kept name's count is
/// over by at most its ``Entry/overcount``. What the kept names do not account for is
/// ``other``. Names are kept to their first ``nameLimit`` bytes.
///
/// ```swift
/// var names = EventNameCounts()
/// names.add("page_view", count: 3)
/// names.top(5)  // [page_view: 3]
/// ```
public struct EventNameCounts: Sendable, Hashable {
    /// Names kept at most. Default 64.
    public let capacity: Int
    /// Events counted.
    public private(set) var total: Int = 0
    private var entries: [String: Entry] = [:]

    /// Bytes of a name kept, at most (a longer one is cut at a character boundary).
    public static let nameLimit = 128

    /// One kept name.
    public struct Entry: Sendable, Hashable {
        public var name: String
        /// Events counted under it (over by at most ``overcount``).
        public var count: Int
        /// What it inherited when it took another name's place.
        public var overcount: Int
    }

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// Counts `count` events named `name` (an empty name counts as `(no name)`).
    public mutating func add(_ name: String, count: Int = 1) {
        guard count > 0 else { return }
        let key = Self.key(name)
        total = total.addingReportingOverflow(count).overflow ? .max : total + count
        if var entry = entries[key] {
            entry.count = entry.count.addingReportingOverflow(count).overflow ? .max : entry.count + count
            entries[key] = entry
            return
        }
        guard entries.count >= capacity, let least = entries.values.min(by: Self.lessCounted) else {
            entries[key] = Entry(name: key, count: count, overcount: 0)
            return
        }
        entries[least.name] = nil
        let (sum, overflow) = least.count.addingReportingOverflow(count)
        entries[key] = Entry(name: key, count: overflow ? .max : sum, overcount: least.count)
    }

    /// The `limit` most counted names, the busiest first (ties by name).
    public func top(_ limit: Int) -> [Entry] {
        Array(entries.values.sorted { a, b in a.count != b.count ? a.count > b.count : a.name < b.name }.prefix(max(0, limit)))
    }

    /// Events not accounted for by the `limit` most counted names.
    public func other(beyond limit: Int) -> Int {
        max(0, total - top(limit).reduce(0) { $0.addingReportingOverflow($1.count).overflow ? .max : $0 + $1.count })
    }

    /// Names kept now (at most ``capacity``).
    public var keptNames: Int { entries.count }

    private static func lessCounted(_ a: Entry, _ b: Entry) -> Bool {
        a.count != b.count ? a.count < b.count : a.name > b.name
    }

    /// `name` as kept: at most ``nameLimit`` bytes, cut at a character boundary.
    static func key(_ name: String) -> String {
        if name.isEmpty { return "(no name)" }
        guard name.utf8.count > nameLimit else { return name }
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= nameLimit - 3 else { break }
            cut.append(character)
        }
        return cut + "…"
    }
}
