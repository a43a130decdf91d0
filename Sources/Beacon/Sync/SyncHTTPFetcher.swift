import BeaconWire
import Foundation

/// Fetches a sync feed over HTTP: `GET URL?since=TOKEN` (no `since` on the first poll).
///
/// ```swift
/// let fetcher = SyncHTTPFetcher(url: URL(string: "http://127.0.0.1:8088/v1/config")!)
/// let bytes = try await fetcher.fetch(since: importer.versionToken)
/// ```
public struct SyncHTTPFetcher: Sendable {
    /// The feed's address, without `since`.
    public let url: URL
    /// How long one request may take.
    public let timeout: Duration
    private let transport: HTTPTransport

    /// Creates a fetcher.
    public init(url: URL, timeout: Duration = .seconds(10)) {
        self.url = url
        self.timeout = timeout
        self.transport = HTTPTransport(idleTimeout: timeout)
    }

    /// The address of a poll after `token`.
    public func url(since token: String?) -> URL {
        guard let token, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "since", value: token)]
        return components.url ?? url
    }

    /// Fetches the feed's bytes; any status other than 200 is an error.
    public func fetch(since token: String?) async throws(SyncError) -> [UInt8] {
        let address = url(since: token).absoluteString
        let exchange = await transport.perform(
            .GET, url: address, headers: [("Accept", "application/json")], body: nil, deadline: timeout)
        switch exchange {
        case .failed(let failure):
            throw .fetch(reason: "\(address): \(failure.reason)")
        case .response(let status, _, let body, let complete):
            guard status == 200 else {
                // The server's words, escape sequences shown rather than obeyed.
                let excerpt = PrintableText.line(String(decoding: body.prefix(200), as: UTF8.self))
                throw .fetch(reason: "\(address) answered HTTP \(status): \(excerpt)")
            }
            guard complete else {
                throw .fetch(reason: "\(address) answered with more than \(HTTPTransport.responseBodyLimit) bytes, the most a feed may hold")
            }
            return body
        }
    }

    /// The fetcher as the function a ``RemoteConfigSyncer`` polls.
    public var fetchFunction: @Sendable (String?) async throws -> [UInt8] {
        { token in try await fetch(since: token) }
    }
}
