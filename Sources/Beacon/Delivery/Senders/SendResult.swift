import BeaconWire

/// What a send came to.
public struct SendResult: Sendable, Hashable {
    /// What it means for the events.
    public var outcome: SendOutcome
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// The bytes that went on the wire (after compression), when known.
    public var wireBytes: Int?

    public init(_ outcome: SendOutcome, status: Int? = nil, wireBytes: Int? = nil) {
        self.outcome = outcome
        self.status = status
        self.wireBytes = wireBytes
    }
}
