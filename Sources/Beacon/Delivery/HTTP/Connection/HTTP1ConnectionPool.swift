import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Plain HTTP/1.1 to one host and port, over connections kept alive between requests:
/// what ``HTTPSender`` posts through for an `http://` endpoint.
///
/// It does per request only what a sender needs: take an idle connection (or open one),
/// write the request, gather the response on the event loop, hand the connection back.
/// On loopback, the same 100-event bodies one after another took 0.63–0.64 ms each this
/// way against 0.71–0.75 ms through AsyncHTTPClient, measured in turn (a blocking socket:
/// 0.45–0.50 ms; see the README's Benchmarks). `https://` endpoints still go through
/// AsyncHTTPClient (``HTTPTransport``), which brings TLS.
///
/// - Safe to call from several tasks at once: each exchange has a connection to itself;
///   up to ``maxIdleConnections`` wait for the next requests.
/// - The deadline covers connecting, the upload and the whole response.
/// - A request on a reused connection that the server closed while it was idle (nothing
///   of a response came back) goes once more on a new connection; a collector dedups by
///   `messageId`, so a batch that did arrive is not stored twice.
/// - Task cancellation closes the connection and ends the exchange with `.cancelled`.
/// - Redirects are answers like any other: the classifier sees the 3xx.
final class HTTP1ConnectionPool: Sendable {
    /// Connections kept open while no request needs them.
    static let maxIdleConnections = 16

    let host: String
    let port: Int
    private let hostHeader: String
    private let group: any EventLoopGroup
    private let idle = Mutex<[any Channel]>([])

    init(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.host = host
        self.port = port
        self.group = group
        let bracketed = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = "\(bracketed):\(port)"
    }

    deinit {
        for channel in idle.withLock({ $0 }) { channel.close(promise: nil) }
    }

    /// Performs one request, giving up after `deadline` with `.timedOut`. Never throws.
    func perform(
        _ method: HTTPMethod, path: String, headers: [(String, String)], body: [UInt8]?, deadline: Duration, bodyLimit: Int
    ) async -> HTTPExchange {
        let end = NIODeadline.now() + TimeAmount(deadline)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.reserveCapacity(headers.count + 2)
        head.headers.add(name: "Host", value: hostHeader)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        let buffer = body.map { ByteBuffer(bytes: $0) }
        var retried = false
        while true {
            do {
                let (channel, reused) = try await connection(until: end)
                do {
                    let response = try await exchange(on: channel, head: head, body: buffer, until: end, bodyLimit: bodyLimit)
                    if response.keepAlive { giveBack(channel) }
                    var fields: [String: String] = [:]
                    for (name, value) in response.headers { fields[name] = value }
                    return .response(
                        status: response.status, headers: fields, body: Array(response.body.readableBytesView),
                        bodyComplete: response.bodyComplete)
                } catch HTTP1ExchangeError.closedBeforeResponse where reused && !retried && !Task.isCancelled {
                    retried = true
                    continue
                }
            } catch {
                if Task.isCancelled { return .failed(.cancelled) }
                return .failed(Self.failure(error))
            }
        }
    }

    /// An idle connection that is still open, or a new one.
    private func connection(until end: NIODeadline) async throws -> (any Channel, reused: Bool) {
        while let channel = idle.withLock({ $0.popLast() }) {
            if channel.isActive { return (channel, true) }
        }
        let remaining = end - .now()
        guard remaining > .zero else { throw HTTP1ExchangeError.timedOut }
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(remaining)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTP1ExchangeHandler())
                }
            }
            .connect(host: host, port: port)
            .get()
        return (channel, false)
    }

    private func exchange(
        on channel: any Channel, head: HTTPRequestHead, body: ByteBuffer?, until end: NIODeadline, bodyLimit: Int
    ) async throws -> HTTP1Response {
        let remaining = end - .now()
        guard remaining > .zero else {
            giveBack(channel)
            throw HTTP1ExchangeError.timedOut
        }
        let promise = channel.eventLoop.makePromise(of: HTTP1Response.self)
        let exchange = HTTP1Exchange(head: head, body: body, timeout: remaining, bodyLimit: bodyLimit, promise: promise)
        return try await withTaskCancellationHandler {
            channel.writeAndFlush(exchange).whenFailure { _ in
                // Written on a connection that closed: no response can come. (When the
                // handler already completed the exchange, this second completion is ignored.)
                promise.fail(HTTP1ExchangeError.closedBeforeResponse)
            }
            return try await promise.futureResult.get()
        } onCancel: {
            // The handler then fails the exchange as closed; `perform` reports it as cancelled.
            channel.close(promise: nil)
        }
    }

    /// Keeps `channel` for the next request, unless enough are kept already.
    private func giveBack(_ channel: any Channel) {
        let kept = idle.withLock { idle in
            guard idle.count < Self.maxIdleConnections else { return false }
            idle.append(channel)
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    private static func failure(_ error: any Error) -> HTTPTransportFailure {
        switch error {
        case let error as HTTP1ExchangeError:
            switch error {
            case .timedOut: return .timedOut
            case .closedBeforeResponse, .closedDuringResponse: return .connectionLost
            case .protocolViolation(let detail): return .badResponse(detail)
            }
        default:
            return HTTPTransportFailure(error)
        }
    }
}
