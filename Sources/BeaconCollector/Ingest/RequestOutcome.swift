/// What one request did, handed to the stats, the metrics and the request log once it is answered.
struct RequestOutcome: Sendable {
    var method: String
    var route: String
    /// The HTTP status, or 0 for a reset.
    var status: Int
    var errorCode: String?
    var fault: String?
    /// Events in a well-formed ingest body.
    var received = 0
    var stored = 0
    var duplicates = 0
    /// How many invalid events there were of each reason code.
    var rejectedByCode: [String: Int] = [:]
    /// How many events were invalid.
    var rejected = 0
    /// Events answered with an injected fault.
    var faulted = 0

    init(method: String, route: String, status: Int) {
        self.method = method
        self.route = route
        self.status = status
    }
}
