import NIOCore
import NIOHTTP1

/// One request on an ``HTTP1Connection`` and the promise its response completes: the
/// outbound message of ``HTTP1ExchangeHandler``.
struct HTTP1Exchange: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer?
    /// How long the whole exchange may take on the connection (upload, response head and body).
    var timeout: TimeAmount
    /// The most response-body bytes kept; a longer body ends the exchange with
    /// ``HTTP1Response/bodyComplete`` false and the connection closed.
    var bodyLimit: Int
    var promise: EventLoopPromise<HTTP1Response>
}

/// What came back for an ``HTTP1Exchange``.
struct HTTP1Response: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer
    /// False when the body went past the exchange's limit (`body` is then empty).
    var bodyComplete: Bool
    /// Whether the connection may carry another request.
    var keepAlive: Bool
}

/// Why an ``HTTP1Exchange`` ended without a response.
enum HTTP1ExchangeError: Error, Hashable {
    /// The exchange took longer than its timeout.
    case timedOut
    /// The connection closed before any byte of the response: on a connection reused from
    /// the pool, the server may have closed it while idle, and the request can go again.
    case closedBeforeResponse
    /// The connection closed during the response.
    case closedDuringResponse
    /// A response came with no request waiting for it, or a request came while another
    /// was in flight.
    case protocolViolation(String)
}
