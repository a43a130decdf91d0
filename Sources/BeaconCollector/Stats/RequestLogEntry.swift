/// One answered request, kept in the collector's bounded request log (see
/// ``Collector/requestLog()``): what arrived when, and what it was told. Tests of retry
/// backoff read the gaps between `secondsSinceStart` values.
public struct RequestLogEntry: Sendable, Hashable, Codable {
    /// Position in arrival order, from 0 (keeps counting after old entries are dropped).
    public var sequence: Int
    /// When the request's head arrived, in seconds on a monotonic clock since the collector was created.
    public var secondsSinceStart: Double
    /// When the request's head arrived, in wall-clock milliseconds since 1970.
    public var arrivedAtMilliseconds: Int64
    /// The HTTP method.
    public var method: String
    /// The request path (without the query).
    public var route: String
    /// The HTTP status answered, or 0 when the connection was reset without a response.
    public var status: Int
    /// Events in the body, when it was a well-formed ingest body; 0 otherwise.
    public var events: Int
    /// The error code answered, if any.
    public var errorCode: String?
    /// The injected fault, if any (`failure`, `throttle`, `hang`, `reset`, `batch_too_large`).
    public var fault: String?
    /// Time from arrival to answer, in seconds.
    public var durationSeconds: Double

    /// Creates an entry.
    public init(
        sequence: Int, secondsSinceStart: Double, arrivedAtMilliseconds: Int64, method: String, route: String,
        status: Int, events: Int, errorCode: String?, fault: String?, durationSeconds: Double
    ) {
        self.sequence = sequence
        self.secondsSinceStart = secondsSinceStart
        self.arrivedAtMilliseconds = arrivedAtMilliseconds
        self.method = method
        self.route = route
        self.status = status
        self.events = events
        self.errorCode = errorCode
        self.fault = fault
        self.durationSeconds = durationSeconds
    }
}
