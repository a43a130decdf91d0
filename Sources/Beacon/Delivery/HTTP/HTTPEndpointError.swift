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
        /// A port that is not a number from 1 to 65535 (the port as given).
        case portOutOfRange(String)
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
        case .portOutOfRange(let port):
            return "endpoint '\(endpoint)' has port \(port), out of range; use a port from 1 to 65535"
        }
    }

    /// The port of `url`'s authority as written (`nil` without one): after the host's
    /// closing `]` for an IPv6 literal, after the last `:` otherwise.
    public static func portText(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        let afterHost: Substring
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            afterHost = hostAndPort[hostAndPort.index(after: close)...]
        } else {
            guard let colon = hostAndPort.lastIndex(of: ":") else { return nil }
            afterHost = hostAndPort[colon...]
        }
        guard afterHost.hasPrefix(":") else { return nil }
        return String(afterHost.dropFirst())
    }

    /// The ports an endpoint may name.
    public static let ports = 1...65_535

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
        // Checked here, on the text: a port past 65535 traps later, inside NIO's socket
        // address, and one past Int.max is not even read as a number by URLComponents.
        if let port = portText(of: trimmed) {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), HTTPEndpointError.ports.contains(number) else {
                throw HTTPEndpointError(.portOutOfRange(port), endpoint: text)
            }
        }
        var normalised = components
        normalised.scheme = scheme
        while normalised.path.hasSuffix("/") { normalised.path.removeLast() }
        guard let url = normalised.url else { throw HTTPEndpointError(.malformed, endpoint: text) }
        return url
    }
}
