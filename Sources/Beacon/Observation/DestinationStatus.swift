import BeaconWire

/// The state of one destination.
public struct DestinationStatus: Sendable, Hashable {
    /// Its name (`default` for a single destination).
    public var name: String
    /// Where it sends.
    public var endpoint: String
    /// Events not yet delivered to it.
    public var depth: Int
    /// What it is doing.
    public var state: State
    /// Consecutive failed attempts of the batch at its head.
    public var consecutiveFailures: Int
    /// The last error, if any.
    public var lastError: String?

    /// What a destination is doing.
    public enum State: Sendable, Hashable {
        case idle
        case sending
        /// Waiting before trying again, until this wall-clock time.
        case backingOff(until: Timestamp)
        /// Stopped until resumed (credentials refused).
        case paused(reason: String)
        case offline
    }

    public init(name: String, endpoint: String, depth: Int, state: State, consecutiveFailures: Int = 0, lastError: String? = nil) {
        self.name = name
        self.endpoint = endpoint
        self.depth = depth
        self.state = state
        self.consecutiveFailures = consecutiveFailures
        self.lastError = lastError
    }
}
