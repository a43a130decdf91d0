/// Where an open engine sits in the fleet, for its dashboard to say (and Esc to go back).
public struct FleetPosition: Sendable, Hashable {
    /// Its index in the list, from 0.
    public var index: Int
    /// Engines in the list.
    public var count: Int
    /// Its name on the list.
    public var name: String

    public init(index: Int, count: Int, name: String) {
        self.index = index
        self.count = count
        self.name = name
    }
}
