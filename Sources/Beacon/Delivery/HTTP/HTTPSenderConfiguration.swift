import BeaconWire
import Foundation

/// How an ``HTTPSender`` reaches its destination. The endpoint is checked when the
/// configuration is made, so a bad URL fails at start-up, not at the first flush.
///
/// ```swift
/// let configuration = try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:8080", writeKey: "wk_123")
/// let sender = HTTPSender(configuration: configuration, logger: logger)
/// ```
public struct HTTPSenderConfiguration: Sendable, Hashable {
    /// The version in the default `User-Agent`.
    public static let libraryVersion = BeaconVersion.current
    /// `beacon-swift/<version> (Linux)`.
    public static let defaultUserAgent = "beacon-swift/\(libraryVersion) (Linux)"
    /// 10 seconds.
    public static let defaultRequestTimeout: Duration = .seconds(10)

    /// The base URL, normalised without a trailing slash (`http://127.0.0.1:8080`).
    public let endpoint: URL
    /// Where batches go: `{endpoint}/v1/batch`.
    public let batchURL: URL
    /// The write key, sent as `Authorization: Basic base64(writeKey + ":")`; `nil` sends no
    /// `Authorization` header (a collector started without `--write-key`).
    public var writeKey: String?
    /// Whether bodies are gzipped (`Content-Encoding: gzip`). On by default.
    public var gzip: Bool
    /// The gzip level, 0...9 (``Gzip/defaultLevel``).
    public var gzipLevel: Int
    /// How long connecting, sending the body and receiving the response head may take
    /// before the exchange counts as timed out; a response body that stalls after that is
    /// cut by a read timeout of the same length. 10 s by default.
    public var requestTimeout: Duration
    /// The `User-Agent` header.
    public var userAgent: String
    /// How `Retry-After` is read and capped (10 minutes by default).
    public var retryAfter: HTTPRetryAfter

    /// Checks `endpoint` and builds a configuration.
    ///
    /// - Throws: ``HTTPEndpointError`` when the endpoint is not an absolute `http` or
    ///   `https` URL with a host, or carries credentials, a query or a fragment.
    public init(
        endpoint: String,
        writeKey: String?,
        gzip: Bool = true,
        gzipLevel: Int = Gzip.defaultLevel,
        requestTimeout: Duration = HTTPSenderConfiguration.defaultRequestTimeout,
        userAgent: String = HTTPSenderConfiguration.defaultUserAgent,
        retryAfter: HTTPRetryAfter = HTTPRetryAfter()
    ) throws(HTTPEndpointError) {
        let base = try HTTPEndpointError.validate(endpoint)
        self.endpoint = base
        // `validate` returns a URL without query or fragment, so appending to its text is safe.
        guard let batchURL = URL(string: base.absoluteString + "/v1/batch") else {
            throw HTTPEndpointError(.malformed, endpoint: endpoint)
        }
        self.batchURL = batchURL
        self.writeKey = writeKey
        self.gzip = gzip
        self.gzipLevel = gzipLevel
        self.requestTimeout = requestTimeout
        self.userAgent = userAgent
        self.retryAfter = retryAfter
    }

    /// `Basic base64(writeKey + ":")`, or `nil` without a write key.
    public var authorizationHeader: String? {
        writeKey.map { "Basic " + Data(($0 + ":").utf8).base64EncodedString() }
    }
}
