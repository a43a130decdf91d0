import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request and what came of it: a response, or the transport failure that ended it.
enum HTTPExchange: Sendable, Hashable {
    /// `bodyComplete` is false when the body went past ``HTTPTransport/responseBodyLimit``
    /// and was left unread (`body` is then empty).
    case response(status: Int, headers: [String: String], body: [UInt8], bodyComplete: Bool = true)
    case failed(HTTPTransportFailure)
}

/// The HTTP client under ``HTTPSender`` and ``SyncHTTPFetcher``: AsyncHTTPClient on
/// SwiftNIO's shared event loops, keeping connections alive between requests.
///
/// It is set up for a sender that does its own retrying:
/// - redirects are not followed (a redirected POST may lose its body, and a moved
///   collector is a configuration problem to report; ``HTTPResponseClassifier`` maps 3xx
///   to `.retryable`);
/// - a failed connection attempt fails the request at once (`ECONNREFUSED` comes back as
///   ``HTTPTransportFailure/connectionRefused``) instead of being retried inside the
///   client until the deadline, so backoff stays with the ``Batcher``;
/// - each exchange has one deadline covering all of it: connection, upload, the response
///   head and the whole body, so a server that trickles its answer a byte at a time
///   cannot hold a request past it (a read timeout alone restarts at every byte).
///
/// The client is shut down when the transport is released.
final class HTTPTransport: Sendable {
    /// The most response-body bytes read; a longer body is classified on its status alone.
    static let responseBodyLimit = 1 << 20

    private let client: HTTPClient

    /// - Parameter idleTimeout: How long an idle read may last on a connection (the
    ///   backstop for a stalled response body).
    init(idleTimeout: Duration) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(idleTimeout), read: .init(idleTimeout)))
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    deinit {
        // Nothing is in flight: every exchange holds the transport until it returns. The
        // only error shutdown reports is "already shut down", which cannot happen here.
        client.shutdown { _ in }
    }

    /// Performs one request, giving up after `deadline` with `.timedOut`. Never throws;
    /// task cancellation ends it at once with `.cancelled`.
    func perform(
        _ method: HTTPMethod, url: String, headers: [(String, String)], body: [UInt8]?, deadline: Duration
    ) async -> HTTPExchange {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let end = ContinuousClock.now + deadline
        do {
            let response = try await client.execute(request, deadline: .now() + .init(deadline))
            var fields: [String: String] = [:]
            for header in response.headers { fields[header.name] = header.value }
            let status = Int(response.status.code)
            do {
                guard let bytes = try await Self.collect(response.body, before: end) else { return .failed(.timedOut) }
                return .response(status: status, headers: fields, body: Array(bytes.readableBytesView))
            } catch is NIOTooManyBytesError {
                return .response(status: status, headers: fields, body: [], bodyComplete: false)
            }
        } catch {
            return .failed(HTTPTransportFailure(error))
        }
    }

    /// The body, up to ``responseBodyLimit`` bytes, or `nil` when `end` came first (the
    /// read is then cancelled, which closes the connection).
    private static func collect(_ body: HTTPClientResponse.Body, before end: ContinuousClock.Instant) async throws -> ByteBuffer? {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: responseBodyLimit) }
            group.addTask {
                try await Task.sleep(until: end, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
