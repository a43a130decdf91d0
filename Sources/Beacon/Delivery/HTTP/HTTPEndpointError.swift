import Foundation

/// Why an endpoint URL was refused, naming the problem and the fix.
public struct HTTPEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the endpoint.
    public enum Problem: Sendable, Hashable {
        /// Not a URL at all.
        case malformed
        /// The scheme is not `http` or `https` (the scheme found, or empty).
        case unsupportedScheme(String)
        /// No host name.
        case missingHost
        /// User and password in the URL: the write key travels in a header instead.
        case credentialsInURL
        /// A query (`?...`) or fragment (`#...`): the endpoint is a base URL.
        case queryOrFragment
    }

    /// What is wrong.
    public var problem: Problem
    /// The endpoint as given (credentials, if any, are not repeated here).
    public var endpoint: String

    /// Creates the error for `endpoint`.
    public init(_ problem: Problem, endpoint: String) {
        self.problem = problem
        self.endpoint = endpoint
    }

    /// One line naming the problem and the fix.
    public var description: String {
        switch problem {
        case .malformed:
            return "endpoint '\(endpoint)' is not a URL; use e.g. http://127.0.0.1:8080"
        case .unsupportedScheme(let scheme):
            let found = scheme.isEmpty ? "no scheme" : "scheme '\(scheme)'"
            return "endpoint '\(endpoint)' has \(found); use http:// or https://"
        case .missingHost:
            return "endpoint '\(endpoint)' has no host; use e.g. http://127.0.0.1:8080"
        case .credentialsInURL:
            return "endpoint has a user or password in the URL; pass the write key separately"
        case .queryOrFragment:
            return "endpoint '\(endpoint)' has a query or fragment; give the base URL (Beacon appends /v1/batch)"
        }
    }

    /// The endpoint as a normalised base URL, or the first problem found.
    static func validate(_ text: String) throws(HTTPEndpointError) -> URL {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, let components = URLComponents(string: trimmed) else {
            throw HTTPEndpointError(.malformed, endpoint: text)
        }
        let scheme = components.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw HTTPEndpointError(.unsupportedScheme(scheme), endpoint: text)
        }
        guard components.user == nil, components.password == nil else {
            throw HTTPEndpointError(.credentialsInURL, endpoint: "\(scheme)://…@\(components.host ?? "")")
        }
        guard components.host?.isEmpty == false else { throw HTTPEndpointError(.missingHost, endpoint: text) }
        guard components.query == nil, components.fragment == nil else {
            throw HTTPEndpointError(.queryOrFragment, endpoint: text)
        }
        var normalised = components
        normalised.scheme = scheme
        while normalised.path.hasSuffix("/") { normalised.path.removeLast() }
        guard let url = normalised.url else { throw HTTPEndpointError(.malformed, endpoint: text) }
        return url
    }
}
