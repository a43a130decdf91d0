import BeaconWire
import Foundation
import Logging

/// Sends batches to a Segment-compatible collector: `POST {endpoint}/v1/batch`, JSON,
/// gzipped by default, Basic auth with the write key.
///
/// It never throws: every response and every network failure goes through
/// ``HTTPResponseClassifier`` into a ``SendResult``. An `http://` endpoint is reached
/// over SwiftNIO's HTTP/1.1 codec with connections kept alive between batches (a lean
/// path: no TLS to bring); an `https://` one through AsyncHTTPClient. Either way it
/// never blocks Swift's cooperative pool, ends each exchange at
/// ``HTTPSenderConfiguration/requestTimeout``, does not follow redirects, and is safe to
/// call from several tasks at once.
///
/// ```swift
/// let sender = try HTTPSender(endpoint: "http://127.0.0.1:8080", writeKey: "wk_123")
/// let result = await sender.send(batch)   // .delivered, .retryable(...), ...
/// ```
public final class HTTPSender: EventSender {
    /// Where and how this sender posts.
    public let configuration: HTTPSenderConfiguration
    private let route: Route
    private let fixedHeaders: [(String, String)]
    private let classifier: HTTPResponseClassifier
    private let logger: Logger
    private let now: @Sendable () -> Timestamp
    /// Failed sends log once per 10 s per kind (``LogThrottle``): a destination that
    /// refuses every batch does not write a line per batch.
    private let logThrottle = LogThrottle()

    /// Creates a sender for a checked configuration.
    ///
    /// - Parameters:
    ///   - logger: Receives one line per failed send (debug for successes).
    ///   - now: The wall clock, for `sentAt` and `Retry-After` dates; tests inject one.
    public init(
        configuration: HTTPSenderConfiguration,
        logger: Logger = Logger(label: "beacon.http-sender"),
        now: @escaping @Sendable () -> Timestamp = { Timestamp.now() }
    ) {
        self.configuration = configuration
        self.classifier = HTTPResponseClassifier(retryAfter: configuration.retryAfter)
        self.logger = logger
        self.now = now
        self.route = Route(configuration)
        var headers = [
            ("Content-Type", "application/json"), ("Accept", "application/json"), ("User-Agent", configuration.userAgent),
        ]
        if let authorization = configuration.authorizationHeader { headers.append(("Authorization", authorization)) }
        self.fixedHeaders = headers
    }

    /// Checks `endpoint` and creates a sender with the default settings (gzip on, 10 s).
    ///
    /// - Throws: ``HTTPEndpointError`` naming what is wrong with `endpoint`.
    public convenience init(
        endpoint: String,
        writeKey: String?,
        logger: Logger = Logger(label: "beacon.http-sender")
    ) throws(HTTPEndpointError) {
        self.init(configuration: try HTTPSenderConfiguration(endpoint: endpoint, writeKey: writeKey), logger: logger)
    }

    /// The endpoint's base URL.
    public var endpointDescription: String { configuration.endpoint.absoluteString }

    /// Posts `batch` and classifies what came back. Never throws; honours task cancellation
    /// (the result is then `.retryable` with reason "send cancelled").
    public func send(_ batch: OutgoingBatch) async -> SendResult {
        let started = ContinuousClock.now
        let (body, gzipped) = batch.preparedBody.map { ($0.bytes, $0.gzipped) } ?? encodedBytes(for: batch)
        let headers = gzipped ? fixedHeaders + [("Content-Encoding", "gzip")] : fixedHeaders
        let exchange: HTTPExchange
        switch route {
        case .plain(let pool, let path):
            exchange = await pool.perform(
                .POST, path: path, headers: headers, body: body, deadline: configuration.requestTimeout,
                bodyLimit: HTTPTransport.responseBodyLimit)
        case .client(let transport, let url):
            exchange = await transport.perform(
                .POST, url: url, headers: headers, body: body, deadline: configuration.requestTimeout)
        }
        let result: SendResult
        switch exchange {
        case .response(let status, let headers, let responseBody, _):
            let outcome = classifier.classify(
                status: status, headers: headers, body: responseBody,
                messageIds: batch.events.map(\.messageId), now: now())
            result = SendResult(outcome, status: status, wireBytes: body.count)
        case .failed(let failure):
            result = SendResult(classifier.classify(failure), status: nil, wireBytes: nil)
        }
        log(result, batch: batch, bodyBytes: body.count, elapsed: ContinuousClock.now - started)
        return result
    }

    /// How requests reach the endpoint.
    private enum Route: Sendable {
        /// `http://`: the lean HTTP/1.1 path, posting to `path` (the batch URL's, percent-encoded).
        case plain(HTTP1ConnectionPool, path: String)
        /// `https://` (or an endpoint the lean path cannot take): AsyncHTTPClient.
        case client(HTTPTransport, url: String)

        init(_ configuration: HTTPSenderConfiguration) {
            let url = configuration.batchURL
            if url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty,
                let components = URLComponents(url: url, resolvingAgainstBaseURL: false), !components.percentEncodedPath.isEmpty
            {
                self = .plain(HTTP1ConnectionPool(host: host, port: url.port ?? 80), path: components.percentEncodedPath)
            } else {
                self = .client(HTTPTransport(idleTimeout: configuration.requestTimeout), url: url.absoluteString)
            }
        }
    }

    /// Encodes and compresses the body now, while another batch is in flight. Its
    /// `sentAt` is taken now: a few milliseconds before the request goes.
    public func prepare(_ batch: OutgoingBatch) -> OutgoingBatch {
        var prepared = batch
        let (bytes, gzipped) = encodedBytes(for: batch)
        prepared.preparedBody = PreparedBody(bytes: bytes, gzipped: gzipped)
        return prepared
    }

    /// The request body, gzipped when configured; plain JSON if compression fails, so the
    /// events still go out.
    private func encodedBytes(for batch: OutgoingBatch) -> ([UInt8], gzipped: Bool) {
        let json = batch.body(sentAt: now())
        guard configuration.gzip else { return (json, false) }
        do {
            return (try Gzip.compress(json, level: configuration.gzipLevel), true)
        } catch {
            logger.error("gzip failed; sending the batch uncompressed", metadata: [
                "batch_id": "\(batch.id)", "destination": "\(endpointDescription)", "error": "\(error)",
            ])
            return (json, false)
        }
    }

    private func log(_ result: SendResult, batch: OutgoingBatch, bodyBytes: Int, elapsed: Duration) {
        // A delivery is logged at debug: skip building its metadata when that is off.
        if case .delivered = result.outcome, logger.logLevel > .debug { return }
        var metadata: Logger.Metadata = [
            "batch_id": "\(batch.id)", "destination": "\(endpointDescription)", "events": "\(batch.events.count)",
            "attempt": "\(batch.attempt)", "wire_bytes": "\(bodyBytes)", "elapsed": "\(elapsed)",
        ]
        if let status = result.status { metadata["status"] = "\(status)" }
        switch result.outcome {
        case .delivered:
            logger.debug("batch delivered", metadata: metadata)
        case .retryable(let reason, let retryAfter):
            if let retryAfter { metadata["retry_after"] = "\(retryAfter)" }
            logger.log(
                .warning, "batch not delivered, will retry: \(reason)", kind: "retryable", throttle: logThrottle,
                metadata: metadata)
        case .rejected(let rejections):
            logger.log(
                .warning, "destination rejected \(rejections.count) event(s) of the batch", kind: "rejected",
                throttle: logThrottle, metadata: metadata)
        case .tooLarge:
            logger.log(
                .warning, "batch too large for the destination", kind: "too large", throttle: logThrottle, metadata: metadata)
        case .unauthorized(let reason):
            logger.log(
                .error, "destination refused the credentials: \(reason)", kind: "unauthorized", throttle: logThrottle,
                metadata: metadata)
        }
    }
}

