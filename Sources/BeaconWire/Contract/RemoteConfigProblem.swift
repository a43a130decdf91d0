/// Why a remote-config value was refused: the path of the value, what it must be and what
/// was found. The collector refuses such a file and the engine such a feed, before
/// anything is stored, so a bad value can never be put in force.
public struct RemoteConfigProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the value is, from the `settings` object: `batchSize`, `blocklist[3]`, `sampling.Page Viewed`.
    public var path: String
    /// What the value must be, e.g. "an integer from 1 to 100000".
    public var expected: String
    /// What was found, shortened.
    public var found: String

    /// Creates a problem.
    public init(path: String, expected: String, found: String) {
        self.path = path
        self.expected = expected
        self.found = found
    }

    /// `settings.PATH must be EXPECTED, found FOUND`.
    public var description: String { "settings.\(path) must be \(expected), found \(found)" }
}
