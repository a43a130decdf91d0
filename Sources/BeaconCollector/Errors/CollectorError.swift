import BeaconWire

/// A request the collector refuses, with the HTTP status and the JSON body it answers:
/// `{"error":"<code>","message":"<what is wrong and how to fix it>"}`.
public struct CollectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code (4xx for client mistakes, 5xx for injected faults and storage failures).
    public var status: Int
    /// A stable, machine-readable code such as `invalid_json` or `request_too_large`.
    public var code: String
    /// One readable sentence naming the problem and the fix.
    public var message: String
    /// Extra response headers (`Retry-After`, `Allow`).
    public var headers: [(String, String)]

    /// Creates an error.
    public init(status: Int, code: String, message: String, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// The JSON body of the error response.
    var jsonBody: [UInt8] { ErrorResponse(error: code, message: message).jsonBytes }

    /// Equal when status, code, message and headers are.
    public static func == (lhs: CollectorError, rhs: CollectorError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.message == rhs.message
            && lhs.headers.elementsEqual(rhs.headers, by: { $0 == $1 })
    }

    /// Hashes status, code and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(code)
        hasher.combine(message)
    }
}
