/// A policy text that could not be read.
public struct FlushPolicyParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text given.
    public var text: String
    /// What is wrong with it.
    public var reason: String
    public var description: String {
        "cannot read flush policy '\(text)': \(reason) (try 'manual', 'count 50', 'every 5s' or 'count 20 or 30s')"
    }
}
