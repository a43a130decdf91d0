import Foundation

/// What an `Authorization` header says about the write key.
enum AuthorizationHeader: Sendable, Hashable {
    /// No header.
    case none
    /// `Basic base64(writeKey + ":")`.
    case basic(writeKey: String)
    /// `Bearer <token>` (Segment's OAuth): the write key must then travel in the body.
    case bearer

    /// Parses the header value.
    ///
    /// - Throws: `malformed_authorization` for an unknown scheme, bad base64 or an empty key.
    static func parse(_ value: String?) throws(CollectorError) -> AuthorizationHeader {
        guard let value else { return .none }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            throw CollectorError.malformedAuthorization("is '\(Self.clip(trimmed))', with no credentials after a scheme")
        }
        switch parts[0].lowercased() {
        case "basic":
            let encoded = parts[1].trimmingCharacters(in: .whitespaces)
            guard let data = Data(base64Encoded: encoded), let decoded = String(data: data, encoding: .utf8) else {
                throw CollectorError.malformedAuthorization("holds '\(Self.clip(encoded))', which is not base64 of UTF-8 text")
            }
            // Segment's format is "key:" (empty password); a bare "key" is tolerated as its docs allow.
            let key = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !key.isEmpty else {
                throw CollectorError.malformedAuthorization("holds an empty write key")
            }
            return .basic(writeKey: key)
        case "bearer":
            return .bearer
        default:
            throw CollectorError.malformedAuthorization("uses the scheme '\(Self.clip(String(parts[0])))'")
        }
    }

    /// The header, or when there is none, an `X-API-Key` header taken as the write key
    /// (FindHotel's fork of analytics-python sends the key only there).
    static func parse(authorization: String?, apiKey: String?) throws(CollectorError) -> AuthorizationHeader {
        let header = try parse(authorization)
        if case .none = header, let apiKey, !apiKey.trimmingCharacters(in: .whitespaces).isEmpty {
            return .basic(writeKey: apiKey.trimmingCharacters(in: .whitespaces))
        }
        return header
    }

    private static func clip(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}

/// Decides whether a request's write key is accepted.
struct WriteKeyAuthenticator: Sendable {
    /// Accepted keys; empty accepts anything.
    var keys: Set<String>

    /// Checks a key from the header before the body is read: refuses a wrong header key
    /// early, and leaves the decision to ``authorize(header:bodyKey:)`` otherwise.
    func precheck(header: AuthorizationHeader) throws(CollectorError) {
        guard !keys.isEmpty, case .basic(let key) = header else { return }
        if !keys.contains(key) { throw CollectorError.invalidWriteKey() }
    }

    /// Accepts a request whose header key or body key is configured.
    func authorize(header: AuthorizationHeader, bodyKey: String?) throws(CollectorError) {
        guard !keys.isEmpty else { return }
        if case .basic(let key) = header {
            guard keys.contains(key) else { throw CollectorError.invalidWriteKey() }
            return
        }
        guard let bodyKey, !bodyKey.isEmpty else { throw CollectorError.missingWriteKey() }
        guard keys.contains(bodyKey) else { throw CollectorError.invalidWriteKey() }
    }
}
