/// What ``StoreLock/check()`` found: nothing when the lock still holds the store at its
/// path and the holder file names this process.
public struct StoreLockCheck: Sendable, Hashable {
    /// One line each, for the log and the control channel.
    public var problems: [String]

    public init(problems: [String]) {
        self.problems = problems
    }

    /// Nothing wrong.
    public var isSound: Bool { problems.isEmpty }
}
