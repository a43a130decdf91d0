import BeaconWire

/// A command named a destination the engine does not have.
public struct UnknownDestinationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name asked for.
    public var name: String
    /// The engine's destinations.
    public var known: [String]

    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }

    public var description: String {
        let shown = name.count > 60 ? String(name.prefix(60)) + "…" : name
        return "no destination named \"\(PrintableText.line(shown))\"; this engine has: \(known.joined(separator: ", "))"
    }
}
