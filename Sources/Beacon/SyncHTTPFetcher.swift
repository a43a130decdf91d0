import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    /// Creates a fetcher.
    public init(url: URL, timeout: Duration = .seconds(10)) {
        self.url = url
        self.timeout = timeout
    }

    /// The address of a poll after `token`.
    public func url(since token: String?) -> URL {
        guard let token, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "since", value: token)]
        return components.url ?? url
    }

    /// Fetches the feed's bytes; any status other than 200 is an error.
    public func fetch(since token: String?) async throws(SyncError) -> [UInt8] {
        var request = URLRequest(url: url(since: token))
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (seconds, attoseconds) = timeout.components
        request.timeoutInterval = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        let outcome: Result<(Data, Int), any Error> = await withCheckedContinuation { continuation in
            let task = URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(returning: .failure(error))
                } else {
                    continuation.resume(returning: .success((data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0)))
                }
            }
            task.resume()
        }
        switch outcome {
        case .failure(let error):
            throw .fetch(reason: "\(request.url?.absoluteString ?? "?"): \(error.localizedDescription)")
        case .success(let (data, status)):
            guard status == 200 else {
                let body = String(decoding: data.prefix(200), as: UTF8.self)
                throw .fetch(reason: "\(request.url?.absoluteString ?? "?") answered HTTP \(status): \(body)")
            }
            return Array(data)
        }
    }

    /// The fetcher as the function a ``RemoteConfigSyncer`` polls.
    public var fetchFunction: @Sendable (String?) async throws -> [UInt8] {
        { token in try await fetch(since: token) }
    }
}
