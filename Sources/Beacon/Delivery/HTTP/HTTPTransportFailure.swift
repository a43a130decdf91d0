/// Why an HTTP exchange ended without a response: the input of
/// ``HTTPResponseClassifier/classify(_:)`` when no status code came back.
public enum HTTPTransportFailure: Sendable, Hashable {
    /// No complete response within the request timeout.
    case timedOut
    /// Nothing listens at the destination (`ECONNREFUSED`).
    case connectionRefused
    /// The connection dropped mid-exchange (reset, closed early).
    case connectionLost
    /// The host name did not resolve.
    case hostNotFound
    /// The machine has no network.
    case notConnected
    /// TLS failed (certificate, handshake).
    case secureConnectionFailed(String)
    /// The response could not be read as HTTP.
    case badResponse(String)
    /// The send was cancelled (shutdown, task cancellation).
    case cancelled
    /// Any other failure, described for a reader.
    case other(String)

    /// A short readable description: `"connection refused"`, `"timed out"`...
    public var reason: String {
        switch self {
        case .timedOut: return "timed out waiting for the destination"
        case .connectionRefused: return "connection refused"
        case .connectionLost: return "connection lost (reset or closed by the destination)"
        case .hostNotFound: return "host not found (DNS)"
        case .notConnected: return "no network connection"
        case .secureConnectionFailed(let detail): return "TLS failed: \(detail)"
        case .badResponse(let detail): return "bad HTTP response: \(detail)"
        case .cancelled: return "send cancelled"
        case .other(let detail): return "network error: \(detail)"
        }
    }
}
