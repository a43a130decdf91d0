import Beacon

/// Several engines on one screen (`beacon monitor --db A --db B`, or `--dir`): the
/// summary list, which row is selected, which engine is open (Enter), and each engine's
/// own dashboard state. A plain value; ``FleetReducer`` makes the next one.
public struct FleetState: Sendable, Hashable {
    /// Each engine's name on the list (its store's file name, or more of its path when
    /// two share one).
    public var names: [String]
    /// Each engine's dashboard state, for when it is open; same order as ``names``.
    public var engines: [DashboardState]
    /// The selected row.
    public var cursor = 0
    /// The engine open on the whole screen, if any (Esc goes back to the list).
    public var focused: Int?
    /// Whether the list's key help is shown.
    public var isHelpVisible = false
    /// A one-line message about the last key, if any.
    public var message: StatusMessage?
    /// Set once `q` was pressed.
    public var isQuitting = false

    /// A list of `names`, each engine's dashboard starting from `engine`.
    public init(names: [String], engine: DashboardState) {
        self.names = names
        self.engines = Array(repeating: engine, count: names.count)
    }

    /// Takes engine `index`'s new snapshot.
    public mutating func observe(_ snapshot: EngineSnapshot, engine index: Int) {
        guard engines.indices.contains(index) else { return }
        engines[index].observe(snapshot)
    }

    /// Names for stores at `paths`: the file name without `.sqlite`, with parent folders
    /// added until every name differs.
    public static func names(forPaths paths: [String]) -> [String] {
        let parts = paths.map { $0.split(separator: "/").map(String.init) }
        var depth = 1
        while true {
            let names = parts.map { components -> String in
                var tail = components.suffix(depth)
                if let last = tail.popLast() {
                    tail.append(last.hasSuffix(".sqlite") ? String(last.dropLast(".sqlite".count)) : last)
                }
                return tail.joined(separator: "/")
            }
            if Set(names).count == names.count || depth >= (parts.map(\.count).max() ?? 1) { return names }
            depth += 1
        }
    }
}
